"""Shadow decisions: what the rules and the LLM each chose, and whose choice was followed.

Every decision signature (``route`` to a manual, the ``next_step`` tool, ``answer`` or
abstain) states a confidence. The confidence is calibrated on the decisions of that
signature already labelled by an outcome (``Calibrator``), and the LLM's choice replaces
the rules' only when the calibrated confidence reaches the threshold (the setting
``llm_override_threshold``, 0.7 by default). Whichever ran, both choices are recorded with
the inputs they were made from (a ``ShadowRecord``), so a later outcome can tell which side
would have been right.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

SIGNATURES = ("route", "next_step", "answer")
BINS = 5
# How many labelled decisions a stated confidence is worth: with few labels in its bin,
# the calibrated value stays near what the model said.
PRIOR_WEIGHT = 4.0
# A model that states no confidence is rated on its track record once it has this many.
MIN_TRACK = 5


@dataclass(frozen=True, slots=True)
class ShadowRecord:
    """One decision as both sides saw it; ``used`` says whose choice ran."""

    signature: str
    step: int
    inputs: dict[str, Any]
    rule: dict[str, Any] | None
    llm: dict[str, Any] | None
    confidence: float | None  # what the model stated (None: it did not, or it was not asked)
    calibrated: float | None
    used: str  # "rules" or "llm"
    why: str = ""

    @property
    def agree(self) -> bool:
        return self.llm is not None and same_choice(self.rule, self.llm)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "agree": self.agree}


def same_choice(a: Mapping[str, Any] | None, b: Mapping[str, Any] | None) -> bool:
    """Two choices are the same when their fields are, case and spacing aside."""
    return _normal(a) == _normal(b)


def _normal(value: Any) -> Any:
    if isinstance(value, str):
        return " ".join(value.lower().split())
    if isinstance(value, Mapping):
        return {k: _normal(v) for k, v in value.items() if k != "reasoning"}
    if isinstance(value, list | tuple):
        return sorted((_normal(v) for v in value), key=lambda v: json.dumps(v, default=str))
    return value


def stated_confidence(value: Any) -> float | None:
    """A model's confidence as a number in [0, 1] (a percentage is read as one); None when
    it gave none or something that is not a number."""
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(str(value).strip().rstrip("%"))
    except ValueError:
        return None
    if number != number:  # NaN
        return None
    if 1.0 < number <= 100.0:
        number /= 100.0
    return min(max(number, 0.0), 1.0)


class Calibrator:
    """Maps a stated confidence to how often the LLM's decisions of that signature and
    about that confidence were right (histogram binning, smoothed toward the stated value).

    Args:
        history: Per signature, (stated confidence, was the LLM right) of labelled decisions.
    """

    def __init__(self, history: Mapping[str, Sequence[tuple[float | None, bool]]] | None = None):
        self.history = {k: list(v) for k, v in (history or {}).items()}

    def calibrate(self, signature: str, stated: float | None) -> float | None:
        """The calibrated confidence; None when the model stated none and has no record."""
        pairs = self.history.get(signature, [])
        if stated is None:
            if len(pairs) < MIN_TRACK:
                return None
            return round((sum(right for _, right in pairs) + 1) / (len(pairs) + 2), 4)
        same_bin = [right for c, right in pairs if c is not None and _bin(c) == _bin(stated)]
        value = (sum(same_bin) + PRIOR_WEIGHT * stated) / (len(same_bin) + PRIOR_WEIGHT)
        return round(value, 4)


def _bin(confidence: float) -> int:
    return min(int(confidence * BINS), BINS - 1)


def arbitrate(
    signature: str,
    stated: float | None,
    calibrator: Calibrator,
    threshold: float,
) -> tuple[bool, float | None, str]:
    """Whether the LLM's choice stands: (llm wins, calibrated confidence, why)."""
    calibrated = calibrator.calibrate(signature, stated)
    if calibrated is None:
        return True, None, "the model stated no confidence and has no record yet: it decides"
    if calibrated >= threshold:
        return True, calibrated, f"the model is confident ({calibrated:.2f} >= {threshold:.2f})"
    why = f"the model is not confident enough ({calibrated:.2f} < {threshold:.2f}): rules decide"
    return False, calibrated, why


class ShadowLog:
    """The shadow records of one question, in the order the decisions were made."""

    def __init__(self) -> None:
        self.records: list[ShadowRecord] = []

    def add(self, record: ShadowRecord) -> ShadowRecord:
        self.records.append(record)
        return record

    def to_list(self) -> list[dict[str, Any]]:
        return [r.to_dict() for r in self.records]
