"""What is judged, and the tables made of the answers.

:mod:`~rrmap.judge.tasks.pairwise` and :mod:`~rrmap.judge.tasks.orders` (2AFC
judging, both orders into one verdict, position bias),
:mod:`~rrmap.judge.tasks.mcq` (multiple-choice questions),
:mod:`~rrmap.judge.tasks.interpret` (explanations graded against a reference),
:mod:`~rrmap.judge.tasks.rating` and :mod:`~rrmap.judge.tasks.model_ratings`
(a model as one more RRMap rater), :mod:`~rrmap.judge.tasks.subjectivity`
(the language of the replies), :mod:`~rrmap.judge.tasks.judges` (judges that
are not HTTP endpoints); privately the output files. Imports prompting and
transport.
"""
