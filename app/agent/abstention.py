"""Whether the manuals answer a question: a calibrated probability from a few signals.

"The manuals don't say" must mean something. One score cannot carry it: a question told
as a story holds many words no answer repeats, and a question about a fuse can be covered
word for word by a page that prints no fuse rating. So the no-LLM answer weighs:

- ``support``: the share of the question's salient term weight (the library's IDF, words
  no manual prints left out) found on the best pages;
- ``best``: the share the best quoted passage holds with its heading;
- ``quantity``: +1 when the question asks for a quantity (a voltage, a torque, what the
  library prints beside a fuse) and a quoted passage prints a value of it, -1 when it asks
  and none does, 0 when it asks for none. A value counts only in a quoted line near the
  question in meaning: ``related`` is the closest such line's cosine to the question
  (MiniLM, each line embedded as the answer is composed), and under ``QUANTITY_RELATED``
  the values quoted are of something else ("how long is the warranty?" quoting a button
  held for 2 seconds; "how long do the D-cells last?" quoting a key pressed within 10
  seconds), so the quantity counts as not given;
- ``rank_score``: the page ranker's score of the best page;
- ``salient``: the share of the question's two rarest words (by the library's IDF) that
  the quoted passages hold: a near miss ("which register holds the kWh total?") quotes
  the topic but not the thing asked for;
- ``asked``: the share of the weight of the words that say what the question asks for
  ("what *fuse rating*", ``query.asked_words``) that the quoted passages hold (1 when it
  asks yes or no).

A logistic model turns them into the probability that the evidence answers the question,
and a question is declined below ``ABSTAIN_BELOW``. A second logistic model, over the
signals that mean the same in any library (``SCALE_FREE``), says how sure an answer given
is: the least sure fifth of the development sets' answerable questions (below
``HEDGE_BELOW``) are answered with a caution that the manual may not state it exactly.
Declining costs an answer, so its model weighs only signals that transfer within the
false-abstention limit; a caution costs nothing but a sentence. Both models and their
thresholds are fitted on the development sets by ``bench/fit_abstention.py``, which
prints their precision and recall across corpora, and how every smaller set of signals
would do on a corpus it was not fitted on. The decline model that ships weighs only the
signals that held false abstentions within 5% on every corpus left out: ``quantity`` alone
on this version's libraries (``quantity``, ``salient`` and ``asked`` did on the version
before's, and abstain falsely on 9% of a corpus left out on this version's); the others
read zero. ``support``, ``best`` and ``rank_score`` are shares and scores whose scale
differs from one library to another: fitted on two corpora, a model of all six declined 11
of the third corpus's 41 answerable questions (README, benchmarks). ``quantity`` alone
gives every answer one of three probabilities, which leaves no band of least sure answers:
hence the caution apart.
"""

from __future__ import annotations

import math
from dataclasses import astuple, dataclass

from app.agent.abstention_weights import (
    ABSTAIN_BELOW,
    BIAS,
    CAUTION_BIAS,
    CAUTION_WEIGHTS,
    HEDGE_BELOW,
    QUANTITY_RELATED,
    WEIGHTS,
)

# A quoted line this near the question in meaning is near enough for any threshold
# ``QUANTITY_RELATED`` is chosen from (``bench/fit_abstention.py``'s grid stops here): the
# lines after it need not be embedded.
RELATED_ENOUGH = 0.35
SIGNALS = ("support", "best", "quantity", "rank_score", "salient", "asked")
# The signals that mean the same in any library: what the quotes hold of the question, not
# a share or a score whose scale differs from one library to another. The caution weighs
# them all; the decline only those that transfer within the false-abstention limit.
SCALE_FREE = ("quantity", "salient", "asked")


@dataclass(frozen=True, slots=True)
class AnswerSignals:
    support: float
    best: float
    quantity: float  # as the quotes print it, whatever the line is about
    rank_score: float
    salient: float
    asked: float = 1.0
    # The cosine to the question of the closest quoted line that prints a value of the
    # asked quantity (1.0 when not measured: no quantity asked, none quoted, no embedder).
    related: float = 1.0

    def unrelated(self, related_at: float | None = None) -> bool:
        """Whether the quotes print the asked quantity only in lines under ``related_at``
        (default ``QUANTITY_RELATED``) of the question: values of something else."""
        at = QUANTITY_RELATED if related_at is None else related_at
        return self.quantity > 0 and self.related < at

    def as_tuple(self, related_at: float | None = None) -> tuple[float, ...]:
        """The models' inputs (``SIGNALS``): a quantity quoted only in lines about other
        things (``unrelated``) counts as not given."""
        quantity = -1.0 if self.unrelated(related_at) else self.quantity
        return (self.support, self.best, quantity, self.rank_score, self.salient, self.asked)

    def raw(self) -> tuple[float, ...]:
        """Every field as measured, ``related`` last: what ``bench/fit_abstention.py``
        keeps to choose ``QUANTITY_RELATED``."""
        return astuple(self)


def answerable(signals: AnswerSignals, weights: dict[str, float] | None = None) -> float:
    """The probability that the evidence answers the question."""
    weights = WEIGHTS if weights is None else weights
    bias = weights.get("bias", BIAS)
    z = bias + sum(
        weights.get(n, 0.0) * x for n, x in zip(SIGNALS, signals.as_tuple(), strict=True)
    )
    return 1.0 / (1.0 + math.exp(-max(min(z, 40.0), -40.0)))


def caution(signals: AnswerSignals) -> float:
    """How sure an answer is, by the caution model: the least sure of the answers given
    (below ``HEDGE_BELOW``) say the manual may not state it exactly."""
    return answerable(signals, {"bias": CAUTION_BIAS, **CAUTION_WEIGHTS})


def verdict(probability: float, sureness: float | None = None) -> str:
    """'answer', 'hedge' (answer, saying the manual may not state it exactly) or 'abstain':
    declined below ``ABSTAIN_BELOW`` of the decline model's ``probability``, hedged below
    ``HEDGE_BELOW`` of the caution model's ``sureness`` (``caution``)."""
    if probability < ABSTAIN_BELOW:
        return "abstain"
    sure = probability if sureness is None else sureness
    return "hedge" if sure < HEDGE_BELOW else "answer"
