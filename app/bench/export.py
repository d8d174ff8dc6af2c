"""A run exported as JSON, CSV (one row per question) or one self-contained HTML report.

The HTML file has its CSS and its charts (inline SVG: per-category bars, a latency
histogram) inside it and loads nothing from anywhere, so it can be mailed or opened on a
machine with no network. ``record_row``, ``category_bars`` and ``latency_histogram`` are the
figures every view of a run shows, so the panel can draw the same ones.
"""

from __future__ import annotations

import csv
import json
from html import escape
from pathlib import Path
from typing import Any

from app.bench.compare import FIGURES
from app.bench.metrics import METRICS

CSV_COLUMNS = (
    "id",
    "category",
    "query",
    "rank",
    "cited_pages",
    "answer",
    "abstained",
    "judge_score",
    "judge_method",
    "missing_facts",
    "incorrect_facts",
    "judge_reasoning",
    "seconds",
)
# The per-category chart: figure, label, colour; the judge's 0-100 is drawn as a share.
BARS = (
    ("hit@1", "Hit@1", "#2f6db5"),
    ("hit@3", "Hit@3", "#6aa0dc"),
    ("mrr", "MRR", "#e08a1e"),
    ("judge_mean", "Judge / 100", "#3a9a5b"),
)
FIGURE_LABELS = {m.key: m.label for m in METRICS}


def record_row(record: dict[str, Any]) -> dict[str, Any]:
    """One question's row: the columns of CSV_COLUMNS, as plain values."""
    verdict = record.get("judge") or {}
    return {
        "id": record.get("id", ""),
        "category": record.get("category", ""),
        "query": record.get("query", ""),
        "rank": (record.get("score") or {}).get("rank"),
        "cited_pages": cited_pages(record),
        "answer": record.get("answer", ""),
        "abstained": bool(record.get("abstained")),
        "judge_score": verdict.get("score"),
        "judge_method": verdict.get("method", ""),
        "missing_facts": "; ".join(verdict.get("missing_facts") or ()),
        "incorrect_facts": "; ".join(verdict.get("incorrect_facts") or ()),
        "judge_reasoning": verdict.get("reasoning", ""),
        "seconds": (record.get("timings") or {}).get("total"),
    }


def cited_pages(record: dict[str, Any]) -> str:
    """The answer's citations as "File.pdf p.3; Other.pdf p.7", each page once."""
    seen: dict[str, None] = {}
    for c in record.get("citations") or ():
        seen.setdefault(f"{c['document']} p.{c['page']}", None)
    return "; ".join(seen)


def category_bars(summary: dict[str, Any]) -> list[tuple[str, dict[str, float | None]]]:
    """Per category, the charted figures as shares 0-1 (None where a figure does not apply)."""
    out = []
    for category, block in summary.get("per_category", {}).items():
        values: dict[str, float | None] = {}
        for key, _, _ in BARS:
            value = block.get(key)
            values[key] = None if value is None else value / 100 if key == "judge_mean" else value
        out.append((category, values))
    return out


def latency_histogram(
    records: list[dict[str, Any]], bins: int = 10
) -> list[tuple[float, float, int]]:
    """Answer times in ``bins`` equal bins from fastest to slowest: (low, high, count)."""
    values = [r["timings"]["total"] for r in records if "total" in (r.get("timings") or {})]
    if not values:
        return []
    low, high = min(values), max(values)
    if high == low:
        return [(low, high, len(values))]
    width = (high - low) / bins
    counts = [0] * bins
    for value in values:
        counts[min(int((value - low) / width), bins - 1)] += 1
    return [(low + i * width, low + (i + 1) * width, n) for i, n in enumerate(counts)]


def export_json(run: dict[str, Any], path: Path) -> Path:
    """The whole run (meta, summary, records) as indented JSON."""
    return _write(path, json.dumps(run, indent=1, ensure_ascii=False))


def export_csv(run: dict[str, Any], path: Path) -> Path:
    """One row per question, with a header row; lists joined with "; "."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for record in run["records"]:
            writer.writerow(record_row(record))
    return path


def export_html(run: dict[str, Any], path: Path) -> Path:
    """One self-contained page: what was run, the summary, the charts and every question."""
    meta = run.get("meta") or {}
    title = f"Lantern benchmark: {meta.get('dataset_name') or 'run'}"
    body = "\n".join(
        [
            f"<h1>{escape(title)}</h1>",
            _meta_html(run),
            "<h2>Summary</h2>",
            _summary_html(run["summary"]),
            "<h2>Charts</h2>",
            '<div class="charts">',
            bars_svg(run["summary"]),
            histogram_svg(run["records"]),
            "</div>",
            f"<h2>Questions ({len(run['records'])})</h2>",
            _records_html(run["records"]),
        ]
    )
    page = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n"
        f"<body>\n{body}\n</body>\n</html>\n"
    )
    return _write(path, page)


def _write(path: Path, text: str) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _meta_html(run: dict[str, Any]) -> str:
    meta, summary = run.get("meta") or {}, run["summary"]
    method = meta.get("judge_method") or summary.get("judge_method") or "key-facts"
    judge = (
        "the local LLM (JudgeAnswer signature, temperature 0)"
        if method == "llm"
        else "the deterministic key-fact check (no LLM installed)"
    )
    fallbacks = summary.get("judge_fallbacks")
    if method == "llm" and fallbacks:
        judge += f"; {fallbacks} verdict(s) fell back to the key-fact check"
    rows = [
        ("Dataset", meta.get("dataset_path") or meta.get("dataset_name")),
        ("Library", meta.get("library_path")),
        ("Mode", meta.get("mode")),
        ("Judge", judge),
        ("Program version", meta.get("program_version") or "built-in"),
        ("Started", meta.get("started")),
        ("Finished", meta.get("finished")),
    ]
    planned = summary.get("questions_planned")
    if meta.get("stopped") or run.get("stopped"):
        rows.append(("Stopped", f"after {summary.get('questions')} of {planned} questions"))
    cells = "".join(f"<tr><th>{escape(k)}</th><td>{escape(str(v))}</td></tr>" for k, v in rows if v)
    return f'<table class="meta">{cells}</table>'


def _summary_html(summary: dict[str, Any]) -> str:
    head = "".join(f"<th>{escape(FIGURE_LABELS[f])}</th>" for f in FIGURES)
    rows = [("all", summary), *summary.get("per_category", {}).items()]
    body = "".join(
        f"<tr><th>{escape(name)}</th>"
        + "".join(f"<td>{_cell(block.get(f))}</td>" for f in FIGURES)
        + "</tr>"
        for name, block in rows
    )
    return f'<table class="summary"><tr><th>category</th>{head}</tr>{body}</table>'


def _records_html(records: list[dict[str, Any]]) -> str:
    heads = ("id", "category", "question", "rank", "cited pages", "answer", "judge", "time s")
    head = "".join(f"<th>{h}</th>" for h in heads)
    rows = []
    for record in records:
        row = record_row(record)
        verdict = "".join(
            f"<div class='{cls}'>{escape(label)}: {escape(row[key])}</div>"
            for key, label, cls in (
                ("missing_facts", "missing", "miss"),
                ("incorrect_facts", "incorrect", "bad"),
                ("judge_reasoning", "why", "why"),
            )
            if row[key]
        )
        answer = escape(row["answer"]) + (" <em>(abstained)</em>" if row["abstained"] else "")
        cells = [
            escape(str(row["id"])),
            escape(str(row["category"])),
            escape(str(row["query"])),
            _cell(row["rank"]) if row["rank"] or row["category"] == "unanswerable" else "no hit",
            escape(row["cited_pages"]),
            answer,
            f"<b>{_cell(row['judge_score'])}</b>{verdict}",
            _cell(row["seconds"]),
        ]
        rows.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return f'<table class="records"><tr>{head}</tr>{"".join(rows)}</table>'


def bars_svg(summary: dict[str, Any], width: int = 640, height: int = 240) -> str:
    """Per category, grouped bars of Hit@1, Hit@3, MRR and the judge score, on a 0-1 axis."""
    groups = category_bars(summary)
    left, bottom, top = 36, 40, 24
    plot_h = height - bottom - top
    group_w = (width - left - 8) / max(len(groups), 1)
    bar_w = group_w * 0.8 / len(BARS)
    parts = [_axis(left, top, width, plot_h)]
    for g, (category, values) in enumerate(groups):
        x0 = left + g * group_w + group_w * 0.1
        for b, (key, label, colour) in enumerate(BARS):
            value = values[key]
            if value is None:
                continue
            h = plot_h * max(0.0, min(1.0, value))
            x, y = x0 + b * bar_w, top + plot_h - h
            parts.append(
                f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w * 0.9:.1f}" height="{h:.1f}" '
                f'fill="{colour}"><title>{escape(category)} {label}: {value:.3g}</title></rect>'
            )
        parts.append(
            f'<text x="{x0 + group_w * 0.4:.1f}" y="{top + plot_h + 16}" '
            f'text-anchor="middle">{escape(category)}</text>'
        )
    for b, (_, label, colour) in enumerate(BARS):
        x = left + b * 120
        parts.append(
            f'<rect x="{x}" y="{height - 14}" width="10" height="10" fill="{colour}"/>'
            f'<text x="{x + 14}" y="{height - 5}">{label}</text>'
        )
    return _svg("Per category", width, height, parts)


def histogram_svg(records: list[dict[str, Any]], width: int = 420, height: int = 240) -> str:
    """How many answers took how long: a histogram of the answer times."""
    bins = latency_histogram(records)
    left, bottom, top = 36, 40, 24
    plot_h = height - bottom - top
    most = max((n for _, _, n in bins), default=0) or 1
    bin_w = (width - left - 8) / max(len(bins), 1)
    parts = [_axis(left, top, width, plot_h, top_label=str(most))]
    for i, (low, high, n) in enumerate(bins):
        h = plot_h * n / most
        x, y = left + i * bin_w, top + plot_h - h
        parts.append(
            f'<rect x="{x + 1:.1f}" y="{y:.1f}" width="{bin_w - 2:.1f}" height="{h:.1f}" '
            f'fill="#7a5fb0"><title>{low:.2f}-{high:.2f} s: {n}</title></rect>'
        )
    if bins:
        parts.append(f'<text x="{left}" y="{top + plot_h + 16}">{bins[0][0]:.2f} s</text>')
        parts.append(
            f'<text x="{width - 8}" y="{top + plot_h + 16}" text-anchor="end">'
            f"{bins[-1][1]:.2f} s</text>"
        )
    parts.append(f'<text x="{left}" y="{height - 5}">answers per time bin</text>')
    return _svg("Answer time", width, height, parts)


def _axis(left: int, top: int, width: int, plot_h: int, top_label: str = "1") -> str:
    base = top + plot_h
    return (
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{base}" stroke="#888"/>'
        f'<line x1="{left}" y1="{base}" x2="{width - 4}" y2="{base}" stroke="#888"/>'
        f'<text x="{left - 4}" y="{top + 4}" text-anchor="end">{top_label}</text>'
        f'<text x="{left - 4}" y="{base}" text-anchor="end">0</text>'
    )


def _svg(title: str, width: int, height: int, parts: list[str]) -> str:
    # No xmlns: inline SVG in HTML needs none, and the report holds no URL at all.
    return (
        f'<figure><figcaption>{escape(title)}</figcaption><svg role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
        f"<title>{escape(title)}</title>{''.join(parts)}</svg></figure>"
    )


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:g}"
    return escape(str(value))


_CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table { border-collapse: collapse; margin: 8px 0; }
th, td { border: 1px solid #ddd; padding: 4px 8px; text-align: left; vertical-align: top; }
table.summary td { text-align: right; }
table.meta th { background: #f4f4f4; }
table.records td:nth-child(6) { max-width: 420px; white-space: pre-wrap; }
.charts { display: flex; flex-wrap: wrap; gap: 24px; }
figure { margin: 0; } figcaption { font-weight: 600; margin-bottom: 4px; }
svg text { font-size: 11px; fill: #444; }
.miss { color: #9a6700; } .bad { color: #b3261e; } .why { color: #666; font-size: 12px; }
"""
