"""How a request reaches a model and its answer comes back, paid for once.

:mod:`~rrmap.judge.transport.client` (an OpenAI-compatible endpoint, retries,
the first request alone), :mod:`~rrmap.judge.transport.endpoint` (where and
how to call a model, how a call fails), :mod:`~rrmap.judge.transport.cache`
(answers kept on disk, locks shared by processes),
:mod:`~rrmap.judge.transport.budget` (calls and cost never past a limit),
:mod:`~rrmap.judge.transport.batch` and :mod:`~rrmap.judge.transport.batch_files`
(batch jobs and their files), :mod:`~rrmap.judge.transport.usage` (what a call
cost); privately the circuit breaker, conversations, replies, the HTTP session
of a client, provenance, the planner of dry runs and batches, and the runner of
many calls. Imports nothing else of the judge.
"""
