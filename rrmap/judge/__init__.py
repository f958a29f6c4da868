"""rrmap.judge: multimodal LLMs as aesthetic judges.

An async client for any OpenAI-compatible chat-completions endpoint with a
crash-safe cache (:mod:`~rrmap.judge.client`, :mod:`~rrmap.judge.cache`),
ArtCoT-style 2AFC judging of stylised images (:mod:`~rrmap.judge.pairwise`),
AesBench/AesTest-style multiple-choice evaluation (:mod:`~rrmap.judge.mcq`),
interpretation scoring (:mod:`~rrmap.judge.interpret`), the subjectivity
of replies (:mod:`~rrmap.judge.subjectivity`), and a model as one more RRMap
rater (:mod:`~rrmap.judge.rating`, with :mod:`~rrmap.judge.corpora` and
:mod:`~rrmap.judge.criteria`).
"""

from rrmap._lazy import attach_stub

# bound at import: the function has its module's name, which would otherwise shadow it
from rrmap.judge.subjectivity import subjectivity as subjectivity

# every name is imported from its module on first use; the names are listed once,
# in __init__.pyi
__getattr__, __dir__, __all__ = attach_stub(__name__, __file__)
