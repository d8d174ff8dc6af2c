"""'The manuals don't say' from calibrated signals, with a hedged middle band."""

from __future__ import annotations

from app.agent.abstention import AnswerSignals, answerable, caution, verdict
from app.agent.abstention_weights import ABSTAIN_BELOW, HEDGE_BELOW


def signals(**changes: float) -> AnswerSignals:
    base = {"support": 0.6, "best": 0.4, "quantity": 0.0, "rank_score": 1.0, "salient": 0.5}
    base.update(changes)
    return AnswerSignals(**base)


def test_more_evidence_never_makes_an_answer_less_likely() -> None:
    # The shipped model uses the signals chosen across corpora (bench/fit_abstention.py);
    # whichever they are, none counts against the evidence.
    from app.agent.abstention import SIGNALS

    for name in SIGNALS:
        assert answerable(signals(**{name: 1.0})) >= answerable(signals(**{name: 0.0}))
    # Whichever signals are chosen, each that weighs at all counts for answering; the
    # caution weighs every scale-free signal, and each makes an answer surer.
    from app.agent.abstention import SCALE_FREE
    from app.agent.abstention_weights import WEIGHTS

    for name in (n for n in SIGNALS if WEIGHTS.get(n, 0.0)):
        assert answerable(signals(**{name: 1.0})) > answerable(signals(**{name: 0.0}))
    for name in SCALE_FREE:
        assert caution(signals(**{name: 1.0})) > caution(signals(**{name: 0.0}))


def test_verdict_bands() -> None:
    # Declined by the decline model's probability, however sure the caution is; hedged by
    # the caution's sureness.
    assert verdict(ABSTAIN_BELOW - 0.01, 1.0) == "abstain"
    assert verdict(ABSTAIN_BELOW + 0.01, HEDGE_BELOW - 0.01) == "hedge"
    assert verdict(ABSTAIN_BELOW + 0.01, HEDGE_BELOW + 0.01) == "answer"


def test_a_question_the_evidence_barely_touches_is_not_answered_plainly() -> None:
    weak = signals(support=0.05, best=0.05, salient=0.0, rank_score=0.2, asked=0.2)
    assert verdict(answerable(weak), caution(weak)) in ("abstain", "hedge")
    # Asking for a quantity the quotes give no value of, it is declined.
    no_value = signals(quantity=-1.0, salient=0.0, asked=0.2)
    assert verdict(answerable(no_value), caution(no_value)) == "abstain"
    strong = signals(support=1.0, best=0.8, salient=1.0, rank_score=1.5, asked=1.0, quantity=1.0)
    assert verdict(answerable(strong), caution(strong)) == "answer"
