"""The menu bar: File, Edit, View, Window, Help, with the platform's standard shortcuts.

Menus only hold actions; each action calls a method of the window, so every command is
reachable from the keyboard and testable without opening a menu.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence

if TYPE_CHECKING:
    from app.ui.window import MainWindow

Shortcut = QKeySequence.StandardKey | str | None


def _action(
    window: MainWindow,
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


def build_menus(window: MainWindow) -> dict[str, QAction]:
    """Create the menus on ``window``; returns the actions by a short name."""
    actions = make_actions(window)
    for name in ("library", "evidence"):
        actions[name].setCheckable(True)
        actions[name].setChecked(True)
    bar = window.menuBar()
    for title, names in MENUS.items():
        menu = bar.addMenu(title)
        for item in names:
            if item is None:
                menu.addSeparator()
            else:
                menu.addAction(actions[item])
    return actions


def make_actions(window: MainWindow) -> dict[str, QAction]:
    """Every command of the window as an action with its shortcut."""
    w = window
    role = QAction.MenuRole
    key = QKeySequence.StandardKey
    actions = {
        "open_library": _action(w, "Open &Library…", w.choose_library),
        "import": _action(w, "&Import Manuals…", w.choose_files, key.Open),
        "import_folder": _action(w, "Import &Folder…", w.choose_folder, "Ctrl+Shift+O"),
        "import_pack": _action(w, "Import &Pack…", w.import_pack),
        "watch_folder": _action(w, "&Watch Folder…", w.watch_folder),
        "remove_missing": _action(w, "Remove Missing Manuals…", w.remove_missing),
        "export_pack": _action(w, "&Export Pack…", w.export_pack),
        "export_selected_pack": _action(
            w, "Export Selected Manual as Pac&k…", w.export_selected_pack
        ),
        "reindex": _action(w, "&Re-index Selected Manual", w.reindex_selected),
        "remove": _action(w, "Re&move Selected Manual", w.remove_selected),
        "quit": _action(w, "&Quit Lantern", w.close, key.Quit, role.QuitRole),
        "copy_answer": _action(w, "Copy &Answer", w.copy_answer, "Ctrl+Shift+C"),
        "new_conversation": _action(w, "&New Conversation", w.new_conversation, key.New),
        "find": _action(w, "&Filter Library", w.focus_filter, key.Find),
        "ask": _action(w, "Focus &Question", w.focus_question, "Ctrl+L"),
        "settings": _action(
            w, "&Models and Settings…", w.open_settings, key.Preferences, role.PreferencesRole
        ),
        "zoom_in": _action(w, "Zoom &In", lambda: w.evidence.view.zoom_by(1.25), key.ZoomIn),
        "zoom_out": _action(w, "Zoom &Out", lambda: w.evidence.view.zoom_by(0.8), key.ZoomOut),
        "fit": _action(w, "&Fit Page Width", lambda: w.evidence.view.fit_width(), "Ctrl+0"),
        "prev_page": _action(w, "&Previous Page", lambda: w.evidence.step(-1), "Ctrl+["),
        "next_page": _action(w, "&Next Page", lambda: w.evidence.step(1), "Ctrl+]"),
        "reasoning": _action(w, "Show &Reasoning of Last Answer", w.toggle_reasoning, "Ctrl+R"),
        "library": _action(w, "Show &Library", w.toggle_library, "Ctrl+1"),
        "evidence": _action(w, "Show &Evidence", w.toggle_evidence, "Ctrl+2"),
        "minimize": _action(w, "Mi&nimize", w.showMinimized, "Ctrl+M"),
        "zoom_window": _action(w, "&Zoom", w.toggle_maximized),
        "main_view": _action(w, "&Assistant", lambda: w.show_view("main"), "Ctrl+Shift+1"),
        "benchmark": _action(w, "&Benchmark", lambda: w.show_view("benchmark"), "Ctrl+Shift+2"),
        "shortcuts": _action(w, "&Keyboard Shortcuts", w.show_shortcuts, key.HelpContents),
        "about": _action(w, "&About Lantern", w.show_about, role=role.AboutRole),
    }  # fmt: skip
    return actions


def shortcut_lines(actions: dict[str, QAction]) -> list[tuple[str, str]]:
    """(command, shortcut) for the Help > Keyboard Shortcuts list."""
    lines = [("Ask the question", "Ctrl+Enter"), ("Stop the answer", "Esc")]
    for action in actions.values():
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        if keys:
            lines.append((action.text().replace("&", "").rstrip("…"), keys))
    return lines
