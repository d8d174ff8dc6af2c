"""The background worker: a process of its own that owns the library and the models.

``engine`` routes the window's requests to lanes (``lanes``: answers; ``work_lanes``:
imports and page images; ``feedback_lane``; ``bench_lane``), each a thread with its own
SQLite connection; ``messages`` are the frozen dataclasses both sides exchange. Nothing
here imports Qt: the window's side of the pipe is ``app.ui.controller``.
"""
