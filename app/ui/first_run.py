"""The first-run offer: "Try it with the sample manual".

The app bundle ships the Lumen AX200 sample manuals but does not import them on its own:
while the library is empty, the sidebar offers them, one click imports them, and "No thanks"
puts the offer away for good (remembered in the window state, never in the bundle).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QSettings, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.ui.widgets import named

DISMISSED_KEY = "firstRun/sampleDismissed"
OFFER_TITLE = "Try it with the sample manual"


class SampleOffer(QFrame):
    """A card above the library's drop zone with the sample manuals one click away."""

    accepted = Signal(list)  # [str]: the sample PDFs to import

    def __init__(
        self, samples: Sequence[Path], state: QSettings, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("sampleOffer")
        self.samples = [str(p) for p in samples]
        self.state = state
        self.library_empty = False
        title = named(QLabel("<b>New to Lantern?</b>"), "docTitle")
        text = named(
            QLabel(
                "Import the sample manuals of the Lumen AX-200 alarm panel (installation and "
                "user manual) and ask them a question."
            ),
            "docMeta",
        )
        text.setWordWrap(True)
        self.try_button = named(QPushButton(OFFER_TITLE), "importButton")
        self.try_button.clicked.connect(self._accept)
        self.dismiss_button = named(QPushButton("No thanks"), "secondaryButton")
        self.dismiss_button.clicked.connect(self.dismiss)
        # The offer's button gets the card's whole width: the sidebar can be narrow.
        dismiss_row = QHBoxLayout()
        dismiss_row.addStretch(1)
        dismiss_row.addWidget(self.dismiss_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.addWidget(title)
        layout.addWidget(text)
        layout.addWidget(self.try_button)
        layout.addLayout(dismiss_row)
        self.hide()

    @property
    def dismissed(self) -> bool:
        return str(self.state.value(DISMISSED_KEY, "false")).lower() == "true"

    def update_for(self, document_count: int) -> None:
        """Shown while the library is empty, unless put away."""
        self.library_empty = document_count == 0
        self.setVisible(bool(self.samples) and self.library_empty and not self.dismissed)

    def _accept(self) -> None:
        self.try_button.setEnabled(False)
        self.try_button.setText("Importing the sample…")
        self.accepted.emit(list(self.samples))

    def dismiss(self) -> None:
        self.state.setValue(DISMISSED_KEY, "true")
        self.state.sync()
        self.hide()


def install_sample_offer(
    library_panel: QWidget,
    samples: Sequence[Path],
    state: QSettings,
    import_paths: Callable[[list[str]], None],
) -> SampleOffer:
    """Put the offer at the top of the library panel, wired to ``import_paths``."""
    offer = SampleOffer(samples, state, library_panel)
    offer.accepted.connect(import_paths)
    layout = library_panel.layout()
    if isinstance(layout, QVBoxLayout):
        layout.insertWidget(1, offer)  # under the heading and the filter box
    return offer
