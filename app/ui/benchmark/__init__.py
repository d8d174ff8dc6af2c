"""The benchmark panel: run a question set blind in the worker, read the table, summary
and charts, compare saved runs, export them, try questions one at a time, and optimise
the prompts.

The worker's side (the benchmark lane and its messages) is ``app.worker.bench_lane`` and
``app.worker.bench_messages``; the window imports ``app.ui.benchmark.panel``.
"""
