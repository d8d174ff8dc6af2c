"""The benchmark's requests and replies between the window and the worker process.

Like ``app.worker.messages``: small frozen dataclasses that pickle across the process
boundary; runs and records travel as the plain dicts ``app.bench`` writes to disk, so the
panel reads exactly what a saved run holds. No Qt here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


# ---- requests (window -> worker) ---------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BenchRunRequest:
    """Run every question of the dataset file blind, judge it, and save the run."""

    job: int
    dataset: str


@dataclass(frozen=True, slots=True)
class BenchStopRequest:
    """Stop run ``job`` after the question it is answering."""

    job: int


@dataclass(frozen=True, slots=True)
class BenchAskRequest:
    """Interactive mode: the agent answers one question, blind (the question text only)."""

    job: int
    question: str


@dataclass(frozen=True, slots=True)
class BenchJudgeRequest:
    """Interactive mode: judge ``answer`` against the item's ground truth; ``repeats`` above
    1 judges it that many times to show how steady the judge is (``judge_consistency``)."""

    job: int
    item: Any  # app.bench.dataset.BenchItem
    answer: str
    abstained: bool = False
    repeats: int = 1


@dataclass(frozen=True, slots=True)
class OptimizeRequest:
    """Optimise the agent's prompts on the dataset (LLM mode only)."""

    job: int
    dataset: str
    optimizer: str = "miprov2"
    val_share: float = 0.3
    with_feedback: bool = True  # the technician's verified answers join the dataset


@dataclass(frozen=True, slots=True)
class LearningRequest:
    """The decisions' rolling accuracy, the optimisation runs and what is due (Learning tab)."""

    job: int


@dataclass(frozen=True, slots=True)
class AutoOptimiseRequest:
    """Run the optimisation that is due now (offered, or the setting is "automatic")."""

    job: int


BenchRequest = (
    BenchRunRequest
    | BenchStopRequest
    | BenchAskRequest
    | BenchJudgeRequest
    | OptimizeRequest
    | LearningRequest
    | AutoOptimiseRequest
)


# ---- replies (worker -> window) ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class BenchStarted:
    """Run ``job`` has loaded its dataset and built its answerer and judge."""

    job: int
    total: int
    first_query: str
    mode: str  # "no-LLM" or "LLM · <model>"
    judge_method: str  # "llm" or "key-facts"


@dataclass(frozen=True, slots=True)
class BenchStep:
    """One question of run ``job`` is finished; ``record`` is its full record."""

    job: int
    done: int
    total: int
    record: dict[str, Any]
    next_query: str = ""  # the question being answered now ("" after the last)


@dataclass(frozen=True, slots=True)
class BenchFinished:
    """Run ``job`` ended: ``run`` is the saved ``{"meta", "summary", "records"}``."""

    job: int
    run: dict[str, Any] | None
    run_id: str = ""
    stopped: bool = False
    error: str = ""


@dataclass(frozen=True, slots=True)
class BenchAnswered:
    """Interactive mode: the agent's record for one question (as ``ask_blind`` makes it)."""

    job: int
    record: dict[str, Any] | None
    error: str = ""


@dataclass(frozen=True, slots=True)
class BenchVerdict:
    """Interactive mode: the judge's verdict (``Verdict.to_dict()``), or for repeated judging
    the ``judge_consistency`` figures (scores, mean, spread, method) and no verdict."""

    job: int
    verdict: dict[str, Any] | None
    error: str = ""
    consistency: dict[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class OptimizeUpdate:
    """Progress of optimisation ``job``; the last one has ``finished`` and the report."""

    job: int
    text: str
    finished: bool = False
    report: dict[str, Any] | None = None
    error: str = ""


@dataclass(frozen=True, slots=True)
class LearningStats:
    """``app.bench.auto_optimize.learning_stats`` for the Learning tab (job 0: sent unasked, after
    a benchmark run labelled decisions)."""

    job: int
    stats: dict[str, Any]
    error: str = ""


BenchReply = (
    BenchStarted
    | BenchStep
    | BenchFinished
    | BenchAnswered
    | BenchVerdict
    | OptimizeUpdate
    | LearningStats
)
BENCH_REPLIES = (
    BenchStarted,
    BenchStep,
    BenchFinished,
    BenchAnswered,
    BenchVerdict,
    OptimizeUpdate,
    LearningStats,
)
