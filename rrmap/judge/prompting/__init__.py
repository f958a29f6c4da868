"""What a model is shown and how its replies are read.

:mod:`~rrmap.judge.prompting.prompts` (every prompt text, replaceable),
:mod:`~rrmap.judge.prompting.images` (images checked, downscaled, composed),
:mod:`~rrmap.judge.prompting.corpora` and :mod:`~rrmap.judge.prompting.criteria`
(what a model rater rates, and on which scales),
:mod:`~rrmap.judge.prompting.parsing` (structured answers read, never
guessed); privately the option texts of multiple-choice replies and input
tables from a file or standard input. Imports the transport layer at most.
"""
