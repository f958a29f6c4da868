"""rrmap.judge: multimodal LLMs as aesthetic judges.

ArtCoT-style 2AFC judging of stylised images (:func:`judge_pairs`),
AesBench/AesTest-style multiple-choice evaluation (:func:`evaluate_mcq`),
interpretation scoring (:func:`score_interpretations`), the subjectivity of
replies (:func:`subjectivity_by`) and a model as one more RRMap rater
(:func:`rate_corpora`), through any OpenAI-compatible chat-completions
endpoint (:class:`ChatClient`) with a crash-safe cache, a budget and batch
jobs.

The package is laid out in four layers, each importing only those below it
(``docs/architecture.md``):

- :mod:`~rrmap.judge.cli`: the ``rrmap judge`` commands;
- :mod:`~rrmap.judge.tasks`: what is judged — pairs, questions,
  interpretations, ratings — and the tables made of the answers;
- :mod:`~rrmap.judge.prompting`: what a model is shown and how its replies
  are read — prompts, images, corpora, criteria, input tables, parsing;
- :mod:`~rrmap.judge.transport`: how a request reaches a model and its answer
  comes back, paid for once — client, cache, budget, batch jobs, usage.

Every public name is importable from here.
"""

from rrmap._util.lazy import attach_stub

# every name is imported from its module on first use; the names are listed once,
# in __init__.pyi
__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
