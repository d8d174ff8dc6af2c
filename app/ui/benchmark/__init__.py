"""The benchmark panel: run a question set blind in the worker, read the table, summary
and charts, compare saved runs, export them, try questions one at a time, and optimise
the prompts.

This package's ``messages`` and ``lane`` run in the worker process too, so nothing here
imports Qt at package level: the window imports ``app.ui.benchmark.panel``.
"""
