"""The benchmark panel: pick a dataset, run it blind in the worker with live progress and
a stop button, read the results, compare saved runs, export a run, try questions one at a
time, and optimise the prompts.

The panel holds no benchmark logic: runs, judging and optimising happen in the worker's
bench lane (``app.worker.bench_lane``); saved runs are read from the library's
``bench_runs`` folder through ``app.bench.runs.RunStore``; the figures come from
``app.bench.metrics``, so the panel shows what ``python -m app bench`` prints.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QMessageBox,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.bench.dataset import BenchItem, DatasetError, load_dataset
from app.bench.metrics import summarise
from app.bench.runs import RunStore, RunStoreError, runs_dir
from app.config import REPO_ROOT, Settings
from app.ui.benchmark.compare_view import CompareView
from app.ui.benchmark.interactive import InteractiveView
from app.ui.benchmark.learning_view import LearningView
from app.ui.benchmark.optimise_view import OptimiseView
from app.ui.benchmark.records import record_answer
from app.ui.benchmark.results_view import ResultsView
from app.ui.benchmark.runs_list import RunsList
from app.ui.benchmark.toolbar import RunBar
from app.ui.controller import Controller
from app.ui.widgets import named
from app.worker.bench_messages import (
    AutoOptimiseRequest,
    BenchAnswered,
    BenchAskRequest,
    BenchFinished,
    BenchJudgeRequest,
    BenchRunRequest,
    BenchStarted,
    BenchStep,
    BenchStopRequest,
    BenchVerdict,
    LearningRequest,
    LearningStats,
    OptimizeRequest,
    OptimizeUpdate,
)
from app.worker.messages import LibraryState, WorkerReady

DEFAULT_DATASET = REPO_ROOT / "manuals" / "questions.json"
DATASET_KEY = "benchmark/dataset"


def run_heading(run: dict[str, Any]) -> str:
    meta = run.get("meta") or {}
    when = str(meta.get("started", ""))[:16].replace("T", " ")
    stopped = f" · stopped after {meta.get('questions')}" if meta.get("stopped") else ""
    return (
        f"{meta.get('dataset_name', 'run')} · {when} · {meta.get('mode', '')} · "
        f"{len(run.get('records') or ())} questions{stopped}"
    )


def scrolled(page: QWidget) -> QScrollArea:
    """A tab's page in a scroll area: a small window scrolls the page instead of the panel's
    minimum size holding the whole window wide open."""
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setWidget(page)
    return area


class BenchmarkPanel(QWidget):
    answer_requested = Signal(object)  # app.agent.events.Answer, for the evidence pane
    run_finished = Signal(object)  # BenchFinished
    optimisation_due = Signal(str)  # the offer, for the window's status bar

    def __init__(
        self,
        controller: Controller,
        settings: Settings,
        colors: dict[str, str],
        state: QSettings,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.controller = controller
        self.state = state
        self.store = RunStore(runs_dir(settings.library_dir))
        self.library_dir = settings.library_dir
        self._jobs = itertools.count(1)
        self.job = 0  # the running benchmark, 0 when none
        self.jobs = {"ask": 0, "judge": 0, "optimise": 0, "learning": 0, "auto": 0}
        self.items: list[BenchItem] = []
        self.dataset = ""
        self.run: dict[str, Any] | None = None  # the saved run on screen
        self.live: list[dict[str, Any]] = []
        self.judge_method = ""
        self.has_llm = False
        self._build(colors)
        self._connect()
        remembered = str(state.value(DATASET_KEY, "") or "")
        default = remembered if Path(remembered).is_file() else str(DEFAULT_DATASET)
        if Path(default).is_file():
            self.load_dataset(default, remember=False)
        self.refresh_runs(show_newest=True)

    # ---- layout ----------------------------------------------------------------------------
    def _build(self, colors: dict[str, str]) -> None:
        self.bar = RunBar(self.library_dir, self)
        self.runs = named(RunsList(self), "benchSidebar")
        self.results = ResultsView(colors, self)
        self.compare = CompareView(colors, self)
        self.interactive = InteractiveView(self)
        self.optimise = OptimiseView(self)
        self.learning = LearningView(colors, self)
        self.tabs = named(QTabWidget(self), "benchTabs")
        self.tabs.setDocumentMode(True)
        for widget, title in (
            (self.results, "Results"),
            (self.compare, "Compare runs"),
            (self.interactive, "Interactive"),
            (self.optimise, "Optimise"),
            (self.learning, "Learning"),
        ):
            self.tabs.addTab(scrolled(widget), title)
        main = QWidget(self)
        column = QVBoxLayout(main)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.bar)
        column.addWidget(self.tabs, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal, self)
        splitter.addWidget(self.runs)
        splitter.addWidget(main)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([250, 1190])
        splitter.setChildrenCollapsible(False)
        self.runs.setMinimumWidth(210)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)

    def _connect(self) -> None:
        c = self.controller
        c.bench_reply.connect(self._reply)
        c.ready.connect(self._worker_ready)
        c.library_changed.connect(self._library_changed)
        c.restarted.connect(self._worker_restarted)
        self.bar.choose_button.clicked.connect(self.choose_dataset)
        self.bar.run_button.clicked.connect(self.start_run)
        self.bar.stop_button.clicked.connect(self.stop_run)
        self.results.record_clicked.connect(lambda r: self.answer_requested.emit(record_answer(r)))
        self.runs.run_selected.connect(self.show_saved_run)
        self.runs.compare_requested.connect(self.compare_runs)
        self.runs.delete_requested.connect(self.delete_run)
        self.interactive.ask_requested.connect(self._interactive_ask)
        self.interactive.judge_requested.connect(self._interactive_judge)
        self.interactive.evidence_requested.connect(
            lambda r: self.answer_requested.emit(record_answer(r))
        )
        self.optimise.optimise_requested.connect(self._optimise)
        self.learning.refresh_requested.connect(self.request_learning)
        self.tabs.currentChanged.connect(
            lambda _i: self.request_learning() if self.current_tab() is self.learning else None
        )
        self.learning.optimise_requested.connect(self._optimise_due)
        self.optimise.stop_requested.connect(
            lambda: self.controller.send_bench(BenchStopRequest(self.jobs["optimise"]))
        )
        self.bar.exports.exported.connect(lambda path: self.bar.say(f"Wrote {path}"))
        self.bar.exports.failed.connect(lambda message: self.bar.say(message, error=True))
        self._update_buttons()

    def show_tab(self, page: QWidget) -> None:
        """Bring the tab holding ``page`` (inside its scroll area) to the front."""
        for index in range(self.tabs.count()):
            area = self.tabs.widget(index)
            if isinstance(area, QScrollArea) and area.widget() is page:
                self.tabs.setCurrentIndex(index)

    def current_tab(self) -> QWidget | None:
        area = self.tabs.currentWidget()
        return area.widget() if isinstance(area, QScrollArea) else None

    # ---- dataset ---------------------------------------------------------------------------
    def choose_dataset(self) -> None:
        start = self.dataset or str(DEFAULT_DATASET.parent)
        path, _ = QFileDialog.getOpenFileName(
            self, "Choose a benchmark dataset", start, "Benchmark datasets (*.json);;All files (*)"
        )
        if path:
            self.load_dataset(path)

    def load_dataset(self, path: str | Path, remember: bool = True) -> bool:
        """Read the dataset (the design's format or the older one); False, said in the
        status line, when it cannot be read."""
        try:
            items = load_dataset(Path(path))
        except DatasetError as exc:
            self.bar.say(str(exc), error=True)
            return False
        self.items, self.dataset = items, str(path)
        self.bar.set_dataset(str(path))
        categories = sorted({i.category for i in items})
        self.bar.say(f"{len(items)} questions in {Path(path).name} ({', '.join(categories)})")
        if remember:
            self.state.setValue(DATASET_KEY, str(path))
        self.interactive.set_items(items)
        self._update_buttons()
        return True

    # ---- a run -----------------------------------------------------------------------------
    def start_run(self) -> None:
        if self.job or not self.dataset:
            return
        self.job = next(self._jobs)
        self.live, self.run = [], None
        self.results.clear(f"{Path(self.dataset).stem} · running…")
        self.bar.start(len(self.items))
        self.bar.say("Starting: building the agent…")
        self._update_buttons()
        self.show_tab(self.results)
        self.controller.send_bench(BenchRunRequest(self.job, self.dataset))

    def stop_run(self) -> None:
        if self.job:
            self.controller.send_bench(BenchStopRequest(self.job))
            self.bar.stop_button.setEnabled(False)
            self.bar.say("Stopping after the question being answered…")

    @property
    def running(self) -> bool:
        return bool(self.job)

    def _reply(self, reply: object) -> None:
        if isinstance(reply, BenchStarted | BenchStep | BenchFinished):
            if reply.job == self.job:
                self._run_reply(reply)
        elif isinstance(reply, BenchAnswered) and reply.job == self.jobs["ask"]:
            self.interactive.on_answered(reply.record, reply.error)
        elif isinstance(reply, BenchVerdict) and reply.job == self.jobs["judge"]:
            self.interactive.on_verdict(reply.verdict, reply.error, reply.consistency)
        elif isinstance(reply, OptimizeUpdate) and reply.job == self.jobs["optimise"]:
            self.optimise.on_update(reply.text, reply.finished, reply.report, reply.error)
        elif isinstance(reply, OptimizeUpdate) and reply.job in (0, self.jobs["auto"]):
            self.learning.on_update(reply.text, reply.finished, reply.report, reply.error)
            if reply.finished and reply.job == self.jobs["auto"]:
                self.jobs["auto"] = 0
        elif isinstance(reply, LearningStats) and reply.job in (
            0,
            self.jobs["learning"],
            self.jobs["auto"],
        ):
            self.learning.set_stats(reply.stats, reply.error)
            self._maybe_optimise(reply)

    def _run_reply(self, reply: BenchStarted | BenchStep | BenchFinished) -> None:
        if isinstance(reply, BenchStarted):
            self.judge_method = reply.judge_method
            self.bar.progress.setRange(0, reply.total)
            self.bar.say(f"Question 1 of {reply.total}: {reply.first_query}")
        elif isinstance(reply, BenchStep):
            self.live.append(reply.record)
            self.results.append_record(reply.record)
            self.results.set_summary(
                f"{Path(self.dataset).stem} · running · {reply.done} of {reply.total}",
                self.live_summary(),
            )
            self.bar.progress.setValue(reply.done)
            if reply.next_query and self.bar.stop_button.isEnabled():
                self.bar.say(f"Question {reply.done + 1} of {reply.total}: {reply.next_query}")
        else:
            self._finished(reply)

    def live_summary(self) -> dict[str, Any]:
        """The figures so far, as ``app.bench.metrics.summarise`` makes them."""
        by_id = {item.id: item for item in self.items}
        if any(r.get("id") not in by_id for r in self.live):
            return {}
        summary = summarise([by_id[r["id"]] for r in self.live], self.live)
        summary["judge_method"] = self.judge_method
        return summary

    def _finished(self, reply: BenchFinished) -> None:
        self.job = 0
        self.bar.progress.hide()
        if reply.error or reply.run is None:
            self.bar.say(f"The run failed: {reply.error}", error=True)
        else:
            done = len(reply.run["records"])
            stopped = (
                f"stopped after {done} of {len(self.items)} questions; " if reply.stopped else ""
            )
            self.bar.say(f"Finished: {stopped}saved as {reply.run_id}")
            self.refresh_runs(current=reply.run_id)
            self.show_run(reply.run)
        self._update_buttons()
        self.run_finished.emit(reply)

    # ---- saved runs ------------------------------------------------------------------------
    def showEvent(self, event: QShowEvent) -> None:
        """Runs saved meanwhile (``python -m app bench`` saves them too) appear on opening."""
        super().showEvent(event)
        if not self.job:
            self.refresh_runs(current=(self.run or {}).get("id", ""))

    def refresh_runs(self, current: str = "", show_newest: bool = False) -> list[Any]:
        infos = self.store.list()
        if show_newest and infos and not self.job:
            current = infos[0].id
            self.show_saved_run(current)
        self.runs.set_runs(infos, current or (self.run or {}).get("id", ""))
        self.compare.set_runs(infos, self.store.load)
        return infos

    def show_saved_run(self, run_id: str) -> None:
        if self.job:
            return  # the live run stays on screen until it ends
        try:
            self.show_run(self.store.load(run_id))
        except RunStoreError as exc:
            self.bar.say(str(exc), error=True)

    def show_run(self, run: dict[str, Any]) -> None:
        self.run = run
        self.results.show_run(run_heading(run), run["summary"], run["records"])
        self.bar.exports.set_run(run)
        self._update_buttons()

    def compare_runs(self, before: str, after: str) -> None:
        self.compare.choose(before, after)
        self.show_tab(self.compare)

    def delete_run(self, run_id: str) -> None:
        answer = QMessageBox.question(self, "Delete run", f"Delete the saved run {run_id}?")
        if answer != QMessageBox.StandardButton.Yes:
            return
        try:
            self.store.delete(run_id)
        except RunStoreError as exc:
            self.bar.say(str(exc), error=True)
        if self.run is not None and self.run.get("id") == run_id:
            self.run = None
            self.results.clear()
            self.bar.exports.set_run(None)
        self.refresh_runs()

    # ---- interactive and optimise ----------------------------------------------------------
    def _interactive_ask(self, question: str) -> None:
        self.jobs["ask"] = next(self._jobs)
        self.controller.send_bench(BenchAskRequest(self.jobs["ask"], question))

    def _interactive_judge(
        self, item: BenchItem, answer: str, abstained: bool, repeats: int = 1
    ) -> None:
        self.jobs["judge"] = next(self._jobs)
        request = BenchJudgeRequest(self.jobs["judge"], item, answer, abstained, repeats)
        self.controller.send_bench(request)

    def request_learning(self) -> None:
        """Ask the worker for the decisions' accuracy and what optimisation is due."""
        self.jobs["learning"] = next(self._jobs)
        self.controller.send_bench(LearningRequest(self.jobs["learning"]))

    def _maybe_optimise(self, reply: LearningStats) -> None:
        """An optimisation is due and the setting is "automatic": start it (unless the
        worker already did, or one runs)."""
        stats = reply.stats
        automatic = stats.get("due") and stats.get("setting") == "automatic"
        if reply.job == 0 and automatic and not stats.get("running") and not self.jobs["auto"]:
            self._optimise_due()
        elif reply.job == 0 and stats.get("due") and stats.get("setting") == "offer":
            self.optimisation_due.emit(
                f"{self.learning.offer.text()} Optimise it in Benchmark > Learning."
            )

    def _optimise_due(self) -> None:
        self.jobs["auto"] = next(self._jobs)
        self.learning.on_update("Starting the optimisation…", False, None, "")
        self.controller.send_bench(AutoOptimiseRequest(self.jobs["auto"]))

    def _optimise(self, optimizer: str, val_share: float) -> None:
        self.jobs["optimise"] = next(self._jobs)
        request = OptimizeRequest(self.jobs["optimise"], self.dataset, optimizer, val_share)
        self.controller.send_bench(request)

    # ---- the worker ------------------------------------------------------------------------
    def _worker_ready(self, ready: WorkerReady) -> None:
        self.has_llm = ready.mode.startswith("LLM")
        if Path(ready.library_dir) != self.library_dir:
            self.set_library_dir(Path(ready.library_dir))
        self._update_buttons()

    def set_library_dir(self, library_dir: Path) -> None:
        """Another library was opened (``Controller.switch_library``): the saved runs on
        screen are the old library's, so its ``bench_runs`` folder's replace them."""
        self.library_dir = library_dir
        self.store = RunStore(runs_dir(library_dir))
        self.bar.set_library_dir(library_dir)
        self.run = None
        self.results.clear()
        self.bar.exports.set_run(None)
        self.refresh_runs(show_newest=True)

    def _library_changed(self, state: LibraryState) -> None:
        self.bar.set_library(len(state.documents))

    def _worker_restarted(self) -> None:
        """The worker died: whatever it was doing for the panel is gone."""
        if self.job:
            self._finished(
                BenchFinished(self.job, None, error="the background worker stopped; run again")
            )
        if self.interactive.waiting:
            self.interactive.on_answered(None, "the background worker stopped")
        if self.optimise.running:
            self.optimise.on_update("", True, None, "the background worker stopped")

    def _update_buttons(self) -> None:
        self.bar.set_state(bool(self.job), bool(self.dataset), self.run is not None)
        self.optimise.set_available(self.has_llm, bool(self.dataset))
