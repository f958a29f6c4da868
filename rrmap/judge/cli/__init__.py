"""``rrmap judge``: the command line of the judge (``rrmap`` loads :data:`judge_group`).

The commands (2afc, mcq, interpret, subjectivity; rate) and what they share:
the backend, budget and batch options, the run (dry, batched or call by
call), outputs and exit codes. Imports every other layer of the judge.
"""

from rrmap.judge.cli._commands import judge_group

__all__ = ["judge_group"]
