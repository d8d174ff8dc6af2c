"""The benchmark panel's Learning tab: how the agent's decisions fare, and optimising them.

For each decision (route to manual, next tool, answer or abstain) a small chart of its
rolling accuracy over time, the rules' and the LLM's lines side by side, and a table of
the current window; the saved runs compared by the program version that answered them;
the optimisation runs so far; and, when one is due, an offer to optimise now, with the
optimiser's progress.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.benchmark.charts import Chart
from app.ui.widgets import named

TITLES = {"route": "Route to manual", "next_step": "Next tool", "answer": "Answer or abstain"}
SIDES = (("rules", "accent"), ("llm", "success"))


class AccuracyChart(Chart):
    """One decision's rolling accuracy after each labelled decision: rules and LLM lines."""

    def __init__(self, signature: str, colors: dict[str, str], parent: QWidget | None = None):
        super().__init__(TITLES.get(signature, signature), colors, parent)
        self.signature = signature
        self.points: list[dict[str, Any]] = []
        self.setMinimumSize(220, 170)

    def set_points(self, points: list[dict[str, Any]]) -> None:
        self.points = points
        self.update()

    def line(self, side: str, plot: QRectF) -> QPolygonF:
        """The side's points in the plot (decisions with no label on that side skipped)."""
        n = max(len(self.points) - 1, 1)
        polygon = QPolygonF()
        for i, point in enumerate(self.points):
            value = point.get(side)
            if value is not None:
                x = plot.left() + plot.width() * i / n
                polygon.append(QPointF(x, plot.bottom() - plot.height() * float(value)))
        return polygon

    def draw(self, painter: QPainter, plot: QRectF) -> None:
        self.y_axis(painter, plot, 1.0, 0.25, "{:.0%}")
        if not self.points:
            self.empty(painter, plot, "No labelled decisions yet")
            return
        for side, color in SIDES:
            painter.setPen(QPen(self.color(color), 2))
            polygon = self.line(side, plot)
            if polygon.size() == 1:
                painter.drawEllipse(polygon.at(0), 2.5, 2.5)
            painter.drawPolyline(polygon)
        x = plot.right()
        for side, color in reversed(SIDES):
            label = "LLM" if side == "llm" else "rules"
            x -= painter.fontMetrics().horizontalAdvance(label) + 22
            painter.fillRect(QRectF(x, plot.bottom() + 12, 10, 10), self.color(color))
            painter.setPen(self.color("text"))
            painter.drawText(QPointF(x + 14, plot.bottom() + 21), label)


def _pct(value: Any) -> str:
    return "–" if value is None else f"{100 * float(value):.0f}%"


class LearningView(QWidget):
    """The Learning tab (see the module docstring)."""

    refresh_requested = Signal()
    optimise_requested = Signal()

    def __init__(self, colors: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.stats: dict[str, Any] = {}
        self.charts = {s: AccuracyChart(s, colors, self) for s in TITLES}
        self.offer = named(QLabel(""), "learningOffer")
        self.offer.setWordWrap(True)
        self.optimise_button = QPushButton("Optimise now", self)
        self.optimise_button.clicked.connect(self.optimise_requested.emit)
        self.refresh_button = QPushButton("Refresh", self)
        self.refresh_button.clicked.connect(self.refresh_requested.emit)
        self.progress = named(QLabel(""), "learningProgress")
        self.table = named(QLabel(""), "learningTable")
        self.versions = named(QLabel(""), "learningVersions")
        self.runs = named(QLabel(""), "learningRuns")
        for label in (self.table, self.versions, self.runs, self.progress):
            label.setWordWrap(True)
            label.setTextFormat(Qt.TextFormat.RichText)
        charts = QGridLayout()
        for i, chart in enumerate(self.charts.values()):
            charts.addWidget(chart, 0, i)
        offer = QHBoxLayout()
        offer.addWidget(self.offer, 1)
        offer.addWidget(self.optimise_button)
        offer.addWidget(self.refresh_button)
        layout = QVBoxLayout(self)
        layout.addLayout(offer)
        layout.addWidget(self.progress)
        layout.addLayout(charts)
        for label in (self.table, self.versions, self.runs):
            layout.addWidget(label)
        layout.addStretch(1)
        self.set_stats({})

    def set_stats(self, stats: dict[str, Any], error: str = "") -> None:
        self.stats = stats
        for signature, chart in self.charts.items():
            chart.set_points(list((stats.get("series") or {}).get(signature) or []))
        self.table.setText(self._table(stats))
        self.versions.setText(self._versions(stats))
        self.runs.setText(self._runs(stats))
        due = stats.get("due")
        if error:
            self.offer.setText(f"Cannot read the decisions: {error}")
        elif due:
            self.offer.setText(
                f"An optimisation of “{TITLES.get(due['signature'], due['signature'])}” is "
                f"due: {due['reason']}."
            )
        else:
            self.offer.setText("No optimisation is due.")
        self.optimise_button.setEnabled(bool(due) and not error)

    def on_update(
        self, text: str, finished: bool, record: dict[str, Any] | None, error: str
    ) -> None:
        """Progress of an optimisation started here (or automatically)."""
        if error:
            self.progress.setText(f"Optimisation failed: {error}")
        elif finished and record is not None:
            kept = f"kept as {record['version']}" if record.get("kept") else "not kept"
            self.progress.setText(
                f"Optimised {TITLES.get(record.get('signature', ''), '')}: held-out score "
                f"{record.get('before', 0):.2f} → {record.get('after') or 0:.2f}, {kept}."
            )
        else:
            self.progress.setText(text)
        self.optimise_button.setEnabled(finished and bool(self.stats.get("due")))

    @staticmethod
    def _table(stats: dict[str, Any]) -> str:
        rows = stats.get("signatures") or []
        window = stats.get("window", 50)
        head = (
            f"<b>Rolling accuracy, last {window} labelled decisions</b><table cellspacing=6>"
            "<tr><th align=left>decision</th><th>labelled</th><th>rules</th><th>LLM</th>"
            "<th>followed</th></tr>"
        )
        body = "".join(
            f"<tr><td>{TITLES.get(r['signature'], r['signature'])}</td>"
            f"<td align=right>{r['labelled']}</td><td align=right>{_pct(r['rules'])}"
            f" ({r['rules_n']})</td><td align=right>{_pct(r['llm'])} ({r['llm_n']})</td>"
            f"<td align=right>{_pct(r['followed'])}</td></tr>"
            for r in rows
        )
        return head + body + "</table>"

    @staticmethod
    def _versions(stats: dict[str, Any]) -> str:
        rows = stats.get("versions") or []
        if not rows:
            return "<b>Runs by program version</b><br>No saved runs yet."
        head = (
            "<b>Runs by program version</b><table cellspacing=6><tr><th align=left>version"
            "</th><th>runs</th><th>questions</th><th>Hit@3</th><th>facts</th><th>judge</th></tr>"
        )
        body = "".join(
            f"<tr><td>{r['version']}</td><td align=right>{r['runs']}</td>"
            f"<td align=right>{r['questions']}</td><td align=right>{_pct(r['hit@3'])}</td>"
            f"<td align=right>{_pct(r['key_fact_recall'])}</td>"
            f"<td align=right>{'–' if r['judge_mean'] is None else r['judge_mean']}</td></tr>"
            for r in rows
        )
        return head + body + "</table>"

    @staticmethod
    def _runs(stats: dict[str, Any]) -> str:
        runs = stats.get("optimisations") or []
        if not runs:
            return "<b>Optimisations</b><br>None yet."
        lines = []
        for run in runs[-5:]:
            kept = f"kept as {run['version']}" if run.get("kept") else "not kept"
            after = run.get("after")
            scores = f"{run.get('before', 0):.2f} → {after:.2f}" if after is not None else "–"
            when = str(run.get("finished", ""))[:16].replace("T", " ")
            lines.append(f"{when} · {TITLES.get(run.get('signature', ''), '')} · {scores} · {kept}")
        return "<b>Optimisations</b><br>" + "<br>".join(lines)
