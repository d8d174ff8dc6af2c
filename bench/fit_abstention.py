"""Fit "the manuals don't say", and report its precision and recall across corpora.

    .venv/bin/python bench/fit_abstention.py --cache DIR [--write]

Every question of every development set (unanswerable ones included) is asked through the
no-LLM agent, and the abstention signals (``app/agent/abstention.py``) of every quote set it
weighs are kept: it answers when the best of its searches' quotes clears the threshold.
Every set of signals is first fitted on all corpora but one and judged on the one left
out, and the sets that decline most there, with false abstentions within ``--max-false``
on every corpus, are printed; ``--choose-signals`` ships the best of them instead of all
six. A logistic model of "the evidence answers it" is fitted on all the sets, then the
threshold below which Lantern declines: the highest one that keeps false abstentions (by
each question's best quote set) at or under ``--max-false`` of the answerable questions of
every corpus. Apart from it, the caution: a logistic model over the signals that mean the
same in any library (``SCALE_FREE``), fitted on all the sets, under which the least sure
fifth of the answerable questions are answered with "the manuals may not state this
exactly" (``caution_threshold``).

Before all of that, ``QUANTITY_RELATED`` is chosen: how near in meaning a quoted line must
be to the question for the value of the asked quantity it prints to count
(``AnswerSignals.related``). For each corpus, it is chosen on the others (the most
unanswerables declined there, within ``--max-false`` on each, then the lowest) and judged
on it; every candidate is printed with its leave-one-corpus-out figures, and the one
chosen on all corpora ships.

Printed per corpus: the model fitted on the other corpus, on this one, on all (the one
``--write`` puts into ``app/agent/abstention_weights.py``), and the one that ships now:
unanswerables declined (recall), the share of declines that were right (precision), false
abstentions.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from cross_corpus import FIT_SETS, BenchSet, cached, open_library  # noqa: E402

from app.agent.abstention import RELATED_ENOUGH, SCALE_FREE, SIGNALS  # noqa: E402
from app.agent.abstention_weights import (  # noqa: E402
    ABSTAIN_BELOW,
    BIAS,
    QUANTITY_RELATED,
    WEIGHTS,
)
from app.bench.dataset import load_dataset  # noqa: E402

WEIGHTS_FILE = ROOT / "app" / "agent" / "abstention_weights.py"
# The model that ships now, printed beside the fits (on all six signals).
SHIPPED = np.r_[BIAS, [WEIGHTS[n] for n in SIGNALS]]
# The least sure answers (at most this share of the answerable questions of the fitting
# data) come with the caution that the manuals may not state it exactly.
HEDGE_SHARE = 0.2
# The closeness in meaning (cosine) a quoted line that prints the asked quantity is tried
# at; None: any such line counts, as before the rule. An answer stops embedding lines at
# ``RELATED_ENOUGH``, so the grid cannot go above it.
RELATED_GRID: tuple[float | None, ...] = (None, 0.1, 0.15, 0.2, 0.25, 0.3, RELATED_ENOUGH)
_QUANTITY = SIGNALS.index("quantity")


@dataclass
class Sample:
    corpus: str
    question: str
    # searches x signals: every quote set the agent weighed; none when it declined
    # before weighing any (``probabilities``). As collected, a last column holds each
    # quote set's ``related`` (``at_related`` turns it into the model's inputs).
    runs: np.ndarray
    answerable: bool

    @property
    def signals(self) -> np.ndarray:
        """The first search's signals (the question as asked)."""
        return self.runs[0]


def collect(sets: Sequence[BenchSet], cache: Path | None) -> list[Sample]:
    """Ask every question through the no-LLM agent, keeping the signals of every quote set
    it weighs: it answers when any of its searches' quotes clears the threshold (a later
    search narrowed to the routed manual may quote what the first missed)."""
    import app.agent.tools.answer as answer_tool
    from app.agent.service import build_answerer

    seen: list[np.ndarray] = []
    original = answer_tool.answer_from_search

    def recording(*args: object, **kwargs: object) -> object:
        quotes = original(*args, **kwargs)  # type: ignore[arg-type]
        if quotes.signals is not None:
            seen.append(np.asarray(quotes.signals.raw(), dtype=float))
        return quotes

    answer_tool.answer_from_search = recording  # type: ignore[assignment]
    out: list[Sample] = []
    libraries: dict[Path, tuple[object, object]] = {}
    try:
        for bench_set in sets:
            if bench_set.corpus not in libraries:
                libraries[bench_set.corpus] = open_library(bench_set.corpus, cache)
            library, settings = libraries[bench_set.corpus]
            answerer = build_answerer(library, settings)  # type: ignore[arg-type]
            for item in load_dataset(bench_set.dataset):
                seen.clear()
                list(answerer.ask(item.query))
                # No quote set weighed: the answerer declined before the model (a manual
                # that prints no value of the asked quantity, no pages at all).
                runs = np.asarray(seen) if seen else np.zeros((0, len(SIGNALS) + 1))
                out.append(Sample(bench_set.corpus.name, item.id, runs, not item.unanswerable))
    finally:
        answer_tool.answer_from_search = original  # type: ignore[assignment]
    return out


def fit(samples: Sequence[Sample], l2: float = 0.01, steps: int = 4000) -> np.ndarray:
    """Logistic regression (bias first), classes weighted equally: unanswerable questions
    are few, and declining them is half of what is asked."""
    x = np.asarray([np.r_[1.0, run] for s in samples for run in s.runs])
    y = np.asarray([s.answerable for s in samples for _ in s.runs], dtype=float)
    pos = max(y.sum(), 1.0)
    neg = max(len(y) - y.sum(), 1.0)
    weight = np.where(y == 1, 0.5 / pos, 0.5 / neg)
    w = np.zeros(x.shape[1])
    for _ in range(steps):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (weight * (p - y)) + 2 * l2 * np.r_[0.0, w[1:]]
        w -= 2.0 * grad
    return w


def probabilities(samples: Sequence[Sample], w: np.ndarray) -> np.ndarray:
    """Per question, the best of its quote sets: the agent answers when any clears. A
    question with none was declined before the model weighed anything (0: declined
    whatever the weights; it takes no part in fitting them either)."""
    out = []
    for s in samples:
        x = np.c_[np.ones(len(s.runs)), s.runs]
        out.append(float(np.max(1 / (1 + np.exp(-(x @ w))))) if len(s.runs) else 0.0)
    return np.asarray(out)


def threshold(samples: Sequence[Sample], w: np.ndarray, max_false: float) -> float:
    """The highest threshold whose false abstentions stay within ``max_false`` of the
    answerable questions of every corpus, not only in sum: in sum, the three-signal fit
    spent 4 of its 5 false abstentions on the 47 alarm questions (8.5%), and a trade it
    never saw can fare as that corpus did. (The signals are chosen by the same rule,
    ``choose_signals``.)"""
    p = probabilities(samples, w)
    answerable = np.asarray([s.answerable for s in samples])
    corpora = np.asarray([s.corpus for s in samples])
    best = 0.05
    for t in np.linspace(0.05, 0.95, 91):
        declined = (p < t) & answerable
        worst = max(
            declined[corpora == c].sum() / max(answerable[corpora == c].sum(), 1)
            for c in set(corpora.tolist())
        )
        if worst <= max_false:
            best = float(t)
    return best


def figures(samples: Sequence[Sample], w: np.ndarray, t: float) -> dict[str, float]:
    p = probabilities(samples, w)
    answerable = np.asarray([s.answerable for s in samples])
    declined = p < t
    right = int((declined & ~answerable).sum())
    return {
        "unanswerable": int((~answerable).sum()),
        "declined_right": right,
        "recall": right / max(int((~answerable).sum()), 1),
        "precision": right / max(int(declined.sum()), 1),
        "false": int((declined & answerable).sum()),
        "answerable": int(answerable.sum()),
    }


def _only(sample: Sample, used: Sequence[int]) -> Sample:
    return Sample(sample.corpus, sample.question, sample.runs[:, list(used)], sample.answerable)


@dataclass(frozen=True)
class LeftOut:
    """How a model fitted on the other corpora does on each corpus left out."""

    declined: int
    unanswerable: int
    false: int
    worst_false_share: float  # the highest share of false abstentions on any one corpus


def leave_one_out(samples: Sequence[Sample], max_false: float) -> LeftOut:
    """Unanswerables declined and false abstentions over every corpus, each by a model
    fitted on the other corpora."""
    declined = unanswerable = false = 0
    worst = 0.0
    for corpus in sorted({s.corpus for s in samples}):
        train = [s for s in samples if s.corpus != corpus]
        if not train:
            continue
        w = fit(train, steps=1500)
        f = figures([s for s in samples if s.corpus == corpus], w, threshold(train, w, max_false))
        declined += f["declined_right"]
        unanswerable += f["unanswerable"]
        false += f["false"]
        worst = max(worst, f["false"] / max(f["answerable"], 1))
    return LeftOut(declined, unanswerable, false, worst)


def choose_signals(samples: Sequence[Sample], max_false: float) -> list[int]:
    """The set of signals a model does best with on corpora it was not fitted on: most
    unanswerables declined less false abstentions while false abstentions stay within
    ``max_false`` on every corpus left out (then fewest false, then the lowest share of
    false abstentions on the worst corpus, then fewest signals). Within every corpus, not
    in sum: a model that declines well on one trade and answers too few questions of
    another does not generalise. A false abstention weighs as much as a decline: a
    question a technician needs answered is worth as much as one wrongly answered. Every
    subset is tried and the best few are printed."""
    scored = []
    for size in range(1, len(SIGNALS) + 1):
        for used in itertools.combinations(range(len(SIGNALS)), size):
            out = leave_one_out([_only(s, used) for s in samples], max_false)
            within = out.worst_false_share <= max_false
            key = (
                within,
                out.declined - out.false,
                -out.false,
                -out.worst_false_share,
                -size,
            )
            scored.append((key, used, out))
    scored.sort(key=lambda x: x[0], reverse=True)
    print("signals by leave-one-corpus-out (summed over the corpora left out; the worst")
    print("corpus's false abstentions must stay within the limit):")
    shipped = tuple(i for i, name in enumerate(SIGNALS) if WEIGHTS.get(name, 0.0) != 0.0)
    shown = scored[:6] + [x for x in scored[6:] if x[1] == shipped]
    for (within, *_), used, out in shown:
        names = ", ".join(SIGNALS[i] for i in used)
        print(
            f"  {out.declined}/{out.unanswerable} declined, {out.false} false"
            f" (worst corpus {out.worst_false_share:.0%}{'' if within else ', over'}): {names}"
            + ("  <- the signals that ship" if used == shipped else "")
        )
    print()
    return list(scored[0][1])


def at_related(sample: Sample, related: float | None) -> Sample:
    """The model's inputs of a collected sample: a quantity quoted only in lines under
    ``related`` of the question counts as not given (-1), as ``AnswerSignals.as_tuple``
    reads it (None: every such line counts)."""
    runs = sample.runs
    if runs.shape[1] == len(SIGNALS):  # collected before ``related`` was kept
        runs = np.c_[runs, np.ones(len(runs))]
    inputs = runs[:, : len(SIGNALS)].copy()
    if related is not None:
        unrelated = (inputs[:, _QUANTITY] > 0) & (runs[:, len(SIGNALS)] < related)
        inputs[unrelated, _QUANTITY] = -1.0
    return Sample(sample.corpus, sample.question, inputs, sample.answerable)


def _related_key(out: LeftOut, max_false: float) -> tuple[bool, int]:
    """How a candidate ``QUANTITY_RELATED`` does left out in turn: false abstentions
    within the limit on every corpus, then unanswerables declined less false abstentions
    (a question a technician needs answered weighs as much as one wrongly answered)."""
    return out.worst_false_share <= max_false, out.declined - out.false


def choose_related(raw: Sequence[Sample], used: Sequence[int], max_false: float) -> float | None:
    """``QUANTITY_RELATED``, chosen by leave-one-corpus-out (``_related_key``). Several
    candidates that do equally well leave a range of cosines between the lines of the
    questions they decline and those they answer: the middle of it ships, as far as the
    data allows from either side ("any" when it is among them: no rule is simpler). Every
    candidate's figures are printed, then the choice made on all corpora but one, judged
    on that one, and the closest quoted lines nearest the threshold."""

    def left_out(samples: Sequence[Sample]) -> list[tuple[float | None, LeftOut]]:
        return [
            (r, leave_one_out([_only(at_related(s, r), used) for s in samples], max_false))
            for r in RELATED_GRID
        ]

    def best(table: list[tuple[float | None, LeftOut]]) -> float | None:
        top = max(_related_key(out, max_false) for _, out in table)
        tied = [r for r, out in table if _related_key(out, max_false) == top]
        return None if None in tied else float(np.mean([r for r in tied if r is not None]))

    def label(r: float | None) -> str:
        return "any" if r is None else f"{r:.3f}"

    table = left_out(raw)
    print("a quoted value counts in a line this near the question (cosine), left out in turn:")
    for r, out in table:
        print(
            f"  {label(r):>5}: {out.declined}/{out.unanswerable} declined, {out.false} false"
            f" (worst corpus {out.worst_false_share:.0%})"
        )
    for corpus in sorted({s.corpus for s in raw}):
        train = [s for s in raw if s.corpus != corpus]
        test = [s for s in raw if s.corpus == corpus]
        if len({s.corpus for s in train}) < 2:
            continue
        r = best(left_out(train))
        fitted = [_only(at_related(s, r), used) for s in train]
        w = fit(fitted, steps=1500)
        judged = [_only(at_related(s, r), used) for s in test]
        f = figures(judged, w, threshold(fitted, w, max_false))
        print(
            f"  chosen on the others {label(r)}, on {corpus}: {f['declined_right']}/"
            f"{f['unanswerable']} declined, {f['false']}/{f['answerable']} false"
        )
    chosen = best(table)
    print(f"  chosen on all: {label(chosen)} (ships now: {QUANTITY_RELATED:.3f})")
    print("  closest quoted line printing the asked quantity, best of each question's searches:")
    print("    " + ", ".join(f"{q} {v:.2f}" for q, v in closest_lines(raw)))
    print()
    return chosen


def closest_lines(raw: Sequence[Sample], lowest: int = 4) -> list[tuple[str, float]]:
    """The ``lowest`` answerable questions by their closest quoted line that prints the
    asked quantity (their best search's), and every unanswerable one under the highest of
    those: where a threshold falls between the two kinds."""
    closest = {}
    for s in raw:
        runs = s.runs[s.runs[:, _QUANTITY] > 0] if s.runs.shape[1] > len(SIGNALS) else []
        if len(runs):
            label = s.question + ("" if s.answerable else " (unanswerable)")
            closest[label] = (float(runs[:, -1].max()), s.answerable)
    answerable = sorted(v for v, ok in closest.values() if ok)[:lowest]
    limit = answerable[-1] if answerable else 1.0
    return sorted(
        ((q, v) for q, (v, ok) in closest.items() if (ok and v in answerable) or v <= limit),
        key=lambda qv: qv[1],
    )


def caution_threshold(
    samples: Sequence[Sample], w: np.ndarray, share: float = HEDGE_SHARE
) -> float:
    """Below this sureness (the caution model's probability) an answer is hedged: the
    least sure ``share`` of the answerable questions."""
    p = np.sort(probabilities(samples, w)[[s.answerable for s in samples]])
    if not len(p):
        return 0.0
    return float(p[min(int(share * len(p)), len(p) - 1)])


def write_weights(
    w: np.ndarray, t: float, caution: np.ndarray, hedge: float, related: float | None
) -> None:
    lines = [
        '"""Weights of the abstention models (``abstention.py``). Written by'
        " ``bench/fit_abstention.py``;",
        'do not edit."""',
        "",
        "# Declining: the signals chosen by leave-one-corpus-out.",
        f"BIAS = {w[0]:.4f}",
        "WEIGHTS: dict[str, float] = {",
        *(f'    "{n}": {v:.4f},' for n, v in zip(SIGNALS, w[1:], strict=True)),
        "}",
        f"ABSTAIN_BELOW = {t:.4f}",
        '# The caution ("the manuals may not state this exactly"): the scale-free signals.',
        f"CAUTION_BIAS = {caution[0]:.4f}",
        "CAUTION_WEIGHTS: dict[str, float] = {",
        *(f'    "{n}": {v:.4f},' for n, v in zip(SCALE_FREE, caution[1:], strict=True)),
        "}",
        f"HEDGE_BELOW = {hedge:.4f}",
        "# A quoted value of the asked quantity counts only in a line at least this near the"
        " question.",
        f"QUANTITY_RELATED = {-1.0 if related is None else related:.4f}",
        "",
    ]
    WEIGHTS_FILE.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {WEIGHTS_FILE}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", action="append", dest="sets", help="NAME=CORPUS_DIR:DATASET")
    parser.add_argument("--cache", type=Path, help="the libraries cross_corpus.py keeps")
    parser.add_argument("--max-false", type=float, default=0.05)
    parser.add_argument("--write", action="store_true", help="save the all-sets fit")
    parser.add_argument("--signals", type=Path, help="save the signals here, or reuse them")
    parser.add_argument(
        "--choose-signals",
        action="store_true",
        help="ship only the signals chosen by leave-one-corpus-out (default: all of them)",
    )
    args = parser.parse_args(argv)
    sets = [BenchSet.parse(s) for s in (args.sets or FIT_SETS)]
    raw = cached(args.signals, sets, args.cache, collect)
    shipped_signals = [i for i, n in enumerate(SIGNALS) if WEIGHTS.get(n, 0.0) != 0.0]
    related = choose_related(raw, shipped_signals or list(range(len(SIGNALS))), args.max_false)
    everything = [at_related(s, related) for s in raw]
    corpora = sorted({s.corpus for s in everything})
    chosen = choose_signals(everything, args.max_false)
    used = chosen if args.choose_signals else list(range(len(SIGNALS)))
    samples = [_only(s, used) for s in everything]
    w_all = fit(samples)
    t_all = threshold(samples, w_all, args.max_false)
    print(f"{'corpus':<10}{'model':<26}{'declined':>10}{'recall':>8}{'precision':>10}{'false':>8}")
    for corpus in corpora:
        test = [s for s in samples if s.corpus == corpus]
        train = [s for s in samples if s.corpus != corpus]
        models = {}
        if train:
            w = fit(train)
            models["fit on the other corpus"] = (w, threshold(train, w, args.max_false))
        w = fit(test)
        models["fit on this corpus"] = (w, threshold(test, w, args.max_false))
        models["fit on all (--write)"] = (w_all, t_all)
        rows = [(name, test, w, t) for name, (w, t) in models.items()]
        # The model that ships weighs all six signals, whichever were chosen here.
        shipped = [at_related(s, QUANTITY_RELATED) for s in raw if s.corpus == corpus]
        rows.append(("shipped weights", shipped, SHIPPED, ABSTAIN_BELOW))
        for name, judged, w, t in rows:
            f = figures(judged, w, t)
            print(
                f"{corpus:<10}{name:<26}{f['declined_right']:>5}/{f['unanswerable']:<4}"
                f"{f['recall']:>8.2f}{f['precision']:>10.2f}{f['false']:>5}/{f['answerable']:<3}"
            )
    print(f"fitted on all: threshold {t_all:.2f}, bias {w_all[0]:+.3f}")
    weights = np.r_[w_all[0], np.zeros(len(SIGNALS))]
    weights[[1 + i for i in used]] = w_all[1:]
    for n, v in zip(SIGNALS, weights[1:], strict=True):
        print(f"  {n:<12}{v:+.3f}" + ("" if SIGNALS.index(n) in used else "  (not chosen)"))
    # The caution: every scale-free signal, fitted on all sets; the least sure fifth of
    # the answerable questions are hedged.
    scale_free = [_only(s, [SIGNALS.index(n) for n in SCALE_FREE]) for s in everything]
    w_caution = fit(scale_free)
    hedge = caution_threshold(scale_free, w_caution)
    sure = probabilities(scale_free, w_caution)
    declined = probabilities(samples, w_all) < t_all
    hedged = (~declined) & (sure < hedge)
    print(
        f"caution: hedged below {hedge:.4f}; of the answers given, {int(hedged.sum())} of"
        f" {int((~declined).sum())} hedged, bias {w_caution[0]:+.3f}"
    )
    for n, v in zip(SCALE_FREE, w_caution[1:], strict=True):
        print(f"  {n:<12}{v:+.3f}")
    if args.write:
        write_weights(weights, t_all, w_caution, hedge, related)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
