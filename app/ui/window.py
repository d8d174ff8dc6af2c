"""Lantern's main window: the library on the left, the conversation in the middle, the
evidence on the right; menus, status bar, drag and drop, and remembered geometry.

The window holds no logic of its own: it wires the panels to the controller's signals
and turns menu commands into controller requests.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings, Qt, QUrl
from PySide6.QtGui import (
    QCloseEvent,
    QColor,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDropEvent,
    QKeySequence,
    QShortcut,
)
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSplitter,
    QStackedWidget,
)

from app.agent.events import FALLBACK_TOOL, Answer, CitationOut, Status
from app.config import Settings
from app.ui.benchmark.panel import BenchmarkPanel
from app.ui.commands import WindowCommands
from app.ui.controller import Controller
from app.ui.conversation import ConversationPanel
from app.ui.evidence import EvidencePane
from app.ui.feedback_link import FeedbackLink
from app.ui.first_run import SampleOffer
from app.ui.menus import build_menus
from app.ui.pack_commands import PackCommands
from app.ui.revision_prompt import KEEP_BOTH, ask_on_match, same_named
from app.ui.sidebar import LibraryPanel
from app.ui.statusbar import StatusBar
from app.ui.warmup import WarmUp
from app.ui.watch_commands import WatchCommands
from app.ui.widgets import named, repolish


def local_pdf_paths(urls: list[QUrl]) -> list[str]:
    """The dropped files and folders worth importing: local PDFs, packs and folders."""
    paths = [Path(u.toLocalFile()) for u in urls if u.isLocalFile()]
    return [str(p) for p in paths if p.is_dir() or p.suffix.lower() in (".pdf", ".lanternpack")]


class MainWindow(WindowCommands, PackCommands, WatchCommands, QMainWindow):
    def __init__(
        self,
        controller: Controller,
        settings: Settings,
        colors: dict[str, str],
        state: QSettings | None = None,
    ) -> None:
        super().__init__()
        self.controller = controller
        self.settings = settings
        self.colors = colors
        self.state = state or QSettings(
            QSettings.Format.IniFormat, QSettings.Scope.UserScope, "Lantern", "Lantern"
        )
        self.setWindowTitle("Lantern")
        self.setAcceptDrops(True)
        self.resize(1440, 900)
        self._build()
        self.actions_by_name = build_menus(self)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self, self.stop_answer)
        self._connect()
        self.restore_state()
        self.warm_up: WarmUp | None = None  # set by build_window; kept alive while it runs
        self.sample_offer: SampleOffer | None = None  # set by build_window on first run

    def _build(self) -> None:
        self.library = named(LibraryPanel(self), "libraryPanel")
        self.conversation = ConversationPanel(self.colors["accent"], self)
        self.evidence = named(EvidencePane(QColor(self.colors["highlight"]), self), "evidencePane")
        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        for widget, stretch in ((self.library, 0), (self.conversation, 1), (self.evidence, 1)):
            self.splitter.addWidget(widget)
            self.splitter.setStretchFactor(self.splitter.indexOf(widget), stretch)
        self.splitter.setChildrenCollapsible(False)
        self.library.setMinimumWidth(220)
        self.evidence.setMinimumWidth(320)
        self.splitter.setSizes([300, 560, 580])
        self.benchmark = named(
            BenchmarkPanel(self.controller, self.settings, self.colors, self.state, self),
            "benchmarkPanel",
        )
        # The panel scrolls when the window is narrower than it likes: a stacked widget is
        # as wide as its widest page, hidden or not, and must not hold the window wide.
        self.benchmark_scroll = named(QScrollArea(self), "benchmarkScroll")
        self.benchmark_scroll.setWidget(self.benchmark)
        self.benchmark_scroll.setWidgetResizable(True)
        self.benchmark_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.views = QStackedWidget(self)
        self.views.addWidget(self.splitter)
        self.views.addWidget(self.benchmark_scroll)
        self.setCentralWidget(self.views)
        self.drop_overlay = named(
            QLabel("Drop PDF manuals or folders to import them"), "dropOverlay"
        )
        self.drop_overlay.setParent(self.views)
        self.drop_overlay.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.drop_overlay.hide()
        self.status = StatusBar(self)
        self.setStatusBar(self.status)

    def _connect(self) -> None:
        c, lib = self.controller, self.library
        c.ready.connect(self.status.set_ready)
        c.library_changed.connect(lambda s: lib.set_documents(list(s.documents), s.revisions))
        c.library_changed.connect(self.status.set_library)
        c.import_queued.connect(lambda q: lib.queue.queued(q.paths))
        c.import_event.connect(lib.queue.add_event)
        c.answer_event.connect(self._answer_event)
        c.pack_done.connect(self.on_pack_done)
        c.watch_state.connect(self.on_watch_state)
        c.page_ready.connect(self.evidence.on_page_ready)
        c.thumbnails_ready.connect(self.evidence.on_thumbnails)
        c.failure.connect(lambda message: self.status.showMessage(message, 10_000))
        c.restarted.connect(
            lambda: lib.queue.abandon("the background worker stopped; import the file again")
        )
        lib.import_requested.connect(self.choose_files)
        lib.remove_requested.connect(self.remove_document)
        lib.reindex_requested.connect(lambda doc: c.reindex(doc.id))
        lib.queue.cancel_requested.connect(c.cancel_imports)
        lib.queue.changed.connect(self._update_work)
        self.conversation.ask_requested.connect(self.ask)
        self.conversation.stop_requested.connect(self.stop_answer)
        self.conversation.citation_clicked.connect(self.show_citation)
        self.evidence.render_requested.connect(c.render)
        self.evidence.thumbnails_requested.connect(c.thumbnails)
        self.benchmark.answer_requested.connect(self.show_benchmark_answer)
        self.benchmark.optimisation_due.connect(lambda text: self.status.showMessage(text, 30_000))
        self.benchmark.bar.library_button.clicked.connect(self.choose_library)
        self.feedback = FeedbackLink(self)  # after _answer_event: it sees the answer shown

    # ---- asking --------------------------------------------------------------------------
    def ask(self, question: str) -> None:
        if self.conversation.busy:
            self.controller.stop_answer()
        history = self.conversation.history()
        job = self.controller.ask(question, history)
        self.conversation.start_answer(job, question)
        self._update_work()

    def stop_answer(self) -> None:
        if self.conversation.busy:
            self.controller.stop_answer()
            self.status.showMessage("Stopping…", 2000)

    def _answer_event(self, job: int, event: object) -> None:
        self.conversation.add_event(job, event)
        if isinstance(event, Answer) and job == self.controller.current_job:
            self.evidence.show_answer(event)
        elif isinstance(event, Status) and event.tool == FALLBACK_TOOL:
            self.status.set_degraded(event.message)
        self._update_work()

    def show_citation(self, citation: CitationOut) -> None:
        if not self.actions_by_name["evidence"].isChecked():
            self.toggle_evidence()
        self.evidence.show_citation(citation)

    def show_benchmark_answer(self, answer: Answer) -> None:
        """A benchmark question's answer with its evidence, in the main view's pane."""
        self.show_view("main")
        if not self.actions_by_name["evidence"].isChecked():
            self.toggle_evidence()
        self.evidence.show_answer(answer)

    def _update_work(self) -> None:
        work = ["Answering…"] if self.conversation.busy else []
        active = len(self.library.queue.active())
        if active:
            work.append(f"Importing {active} file{'s' if active != 1 else ''}…")
        self.status.set_work(work)

    # ---- drag and drop -------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if local_pdf_paths(event.mimeData().urls()):
            event.acceptProposedAction()
            self._set_dragging(True)
        else:
            event.ignore()

    def dragLeaveEvent(self, event: QDragLeaveEvent) -> None:
        self._set_dragging(False)

    #: Asks what a file named like a manual already there becomes (tests replace it).
    choose_on_match = staticmethod(ask_on_match)

    def dropEvent(self, event: QDropEvent) -> None:
        self._set_dragging(False)
        paths = local_pdf_paths(event.mimeData().urls())
        if paths:
            event.acceptProposedAction()
            packs = [p for p in paths if p.lower().endswith(".lanternpack")]
            self.import_packs(packs)
            if len(packs) < len(paths):
                self.import_paths([p for p in paths if p not in packs])

    def _set_dragging(self, dragging: bool) -> None:
        """Say where a drag would go: the whole window shows that it takes the drop."""
        self.library.drop_zone.setProperty("dragging", dragging)
        repolish(self.library.drop_zone)
        if dragging:
            self.drop_overlay.setGeometry(self.views.rect().adjusted(8, 8, -8, -8))
            self.drop_overlay.raise_()
        self.drop_overlay.setVisible(dragging)

    def import_paths(self, paths: list[str]) -> None:
        on_match = KEEP_BOTH  # a title-only match (not known here) becomes another manual
        names = same_named(paths, self.library.documents)
        if names:
            chosen = self.choose_on_match(self, names)
            if chosen is None:
                return
            on_match = chosen
        self.controller.import_paths(paths, on_match)
        self.library.queue.queued(tuple(p for p in paths if not Path(p).is_dir()))
        self.status.showMessage(f"Importing {len(paths)} item(s)…", 3000)

    # ---- state ---------------------------------------------------------------------------
    def restore_state(self) -> None:
        geometry = self.state.value("window/geometry")
        if isinstance(geometry, QByteArray):
            self.restoreGeometry(geometry)
        splitter = self.state.value("window/splitter")
        if isinstance(splitter, QByteArray):
            self.splitter.restoreState(splitter)

    def save_state(self) -> None:
        self.state.setValue("window/geometry", self.saveGeometry())
        self.state.setValue("window/splitter", self.splitter.saveState())
        self.state.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_state()
        self.controller.shutdown()
        super().closeEvent(event)

    def show_view(self, view: str) -> None:
        benchmark = view == "benchmark"
        self.views.setCurrentWidget(self.benchmark_scroll if benchmark else self.splitter)
