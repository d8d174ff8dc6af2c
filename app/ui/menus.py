"""The menu bar: File, Edit, View, Window, Help, with the platform's standard shortcuts.

Menus only hold actions; each action calls a method of the window, so every command is
reachable from the keyboard and testable without opening a menu.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from PySide6.QtGui import QAction, QKeySequence

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMainWindow

    from app.ui.evidence import EvidencePane

Shortcut = QKeySequence.StandardKey | str | None


class MenuHost(Protocol):
    """What the menus call on the window (``MainWindow`` and its command mixins); a protocol
    rather than the class, so the window module imports this one and not the other way."""

    evidence: EvidencePane

    def _window(self) -> QMainWindow: ...
    def show_view(self, view: str) -> None: ...
    def choose_library(self) -> None: ...
    def choose_files(self) -> None: ...
    def choose_folder(self) -> None: ...
    def import_pack(self) -> None: ...
    def watch_folder(self) -> None: ...
    def remove_missing(self) -> None: ...
    def export_pack(self) -> None: ...
    def export_selected_pack(self) -> None: ...
    def reindex_selected(self) -> None: ...
    def remove_selected(self) -> None: ...
    def copy_answer(self) -> None: ...
    def new_conversation(self) -> None: ...
    def focus_filter(self) -> None: ...
    def focus_question(self) -> None: ...
    def open_settings(self) -> None: ...
    def toggle_reasoning(self) -> None: ...
    def toggle_library(self) -> None: ...
    def toggle_evidence(self) -> None: ...
    def toggle_maximized(self) -> None: ...
    def show_shortcuts(self) -> None: ...
    def show_about(self) -> None: ...


def _action(
    window: QMainWindow,
    text: str,
    slot: Callable[[], object],
    shortcut: Shortcut = None,
    role: QAction.MenuRole | None = None,
) -> QAction:
    action = QAction(text, window)
    if isinstance(shortcut, QKeySequence.StandardKey):
        action.setShortcuts(shortcut)
    elif shortcut:
        action.setShortcut(QKeySequence(shortcut))
    if role is not None:
        action.setMenuRole(role)  # macOS moves About/Preferences/Quit into the app menu
    action.triggered.connect(lambda _=False: slot())
    return action


MENUS: dict[str, list[str | None]] = {
    "&File": ["open_library", None, "import", "import_folder", None, "import_pack",
              "export_pack", "export_selected_pack", None, "watch_folder", "remove_missing",
              None, "reindex", "remove", None, "quit"],
    "&Edit": ["copy_answer", "new_conversation", None, "find", "ask", None, "settings"],
    "&View": ["zoom_in", "zoom_out", "fit", None, "prev_page", "next_page", None,
              "reasoning", None, "library", "evidence"],
    "&Window": ["minimize", "zoom_window", None, "main_view", "benchmark"],
    "&Help": ["shortcuts", "about"],
}  # fmt: skip


def build_menus(host: MenuHost) -> dict[str, QAction]:
    """Create the menus on ``host``'s window; returns the actions by a short name."""
    actions = make_actions(host)
    for name in ("library", "evidence"):
        actions[name].setCheckable(True)
        actions[name].setChecked(True)
    bar = host._window().menuBar()
    for title, names in MENUS.items():
        menu = bar.addMenu(title)
        for item in names:
            if item is None:
                menu.addSeparator()
            else:
                menu.addAction(actions[item])
    return actions


def make_actions(host: MenuHost) -> dict[str, QAction]:
    """Every command of the window as an action with its shortcut."""
    w, q = host, host._window()
    role = QAction.MenuRole
    key = QKeySequence.StandardKey
    actions = {
        "open_library": _action(q, "Open &Library…", w.choose_library),
        "import": _action(q, "&Import Manuals…", w.choose_files, key.Open),
        "import_folder": _action(q, "Import &Folder…", w.choose_folder, "Ctrl+Shift+O"),
        "import_pack": _action(q, "Import &Pack…", w.import_pack),
        "watch_folder": _action(q, "&Watch Folder…", w.watch_folder),
        "remove_missing": _action(q, "Remove Missing Manuals…", w.remove_missing),
        "export_pack": _action(q, "&Export Pack…", w.export_pack),
        "export_selected_pack": _action(
            q, "Export Selected Manual as Pac&k…", w.export_selected_pack
        ),
        "reindex": _action(q, "&Re-index Selected Manual", w.reindex_selected),
        "remove": _action(q, "Re&move Selected Manual", w.remove_selected),
        "quit": _action(q, "&Quit Lantern", q.close, key.Quit, role.QuitRole),
        "copy_answer": _action(q, "Copy &Answer", w.copy_answer, "Ctrl+Shift+C"),
        "new_conversation": _action(q, "&New Conversation", w.new_conversation, key.New),
        "find": _action(q, "&Filter Library", w.focus_filter, key.Find),
        "ask": _action(q, "Focus &Question", w.focus_question, "Ctrl+L"),
        "settings": _action(
            q, "&Models and Settings…", w.open_settings, key.Preferences, role.PreferencesRole
        ),
        "zoom_in": _action(q, "Zoom &In", lambda: w.evidence.view.zoom_by(1.25), key.ZoomIn),
        "zoom_out": _action(q, "Zoom &Out", lambda: w.evidence.view.zoom_by(0.8), key.ZoomOut),
        "fit": _action(q, "&Fit Page Width", lambda: w.evidence.view.fit_width(), "Ctrl+0"),
        "prev_page": _action(q, "&Previous Page", lambda: w.evidence.step(-1), "Ctrl+["),
        "next_page": _action(q, "&Next Page", lambda: w.evidence.step(1), "Ctrl+]"),
        "reasoning": _action(q, "Show &Reasoning of Last Answer", w.toggle_reasoning, "Ctrl+R"),
        "library": _action(q, "Show &Library", w.toggle_library, "Ctrl+1"),
        "evidence": _action(q, "Show &Evidence", w.toggle_evidence, "Ctrl+2"),
        "minimize": _action(q, "Mi&nimize", q.showMinimized, "Ctrl+M"),
        "zoom_window": _action(q, "&Zoom", w.toggle_maximized),
        "main_view": _action(q, "&Assistant", lambda: w.show_view("main"), "Ctrl+Shift+1"),
        "benchmark": _action(q, "&Benchmark", lambda: w.show_view("benchmark"), "Ctrl+Shift+2"),
        "shortcuts": _action(q, "&Keyboard Shortcuts", w.show_shortcuts, key.HelpContents),
        "about": _action(q, "&About Lantern", w.show_about, role=role.AboutRole),
    }  # fmt: skip
    return actions
