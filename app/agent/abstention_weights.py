"""Weights of the abstention models (``abstention.py``). Written by ``bench/fit_abstention.py``;
do not edit."""

# Declining: the signals chosen by leave-one-corpus-out.
BIAS = -0.0941
WEIGHTS: dict[str, float] = {
    "support": 0.0000,
    "best": 0.0000,
    "quantity": 0.7969,
    "rank_score": 0.0000,
    "salient": 0.0000,
    "asked": 0.0000,
}
ABSTAIN_BELOW = 0.4700
# The caution ("the manuals may not state this exactly"): the scale-free signals.
CAUTION_BIAS = -1.0231
CAUTION_WEIGHTS: dict[str, float] = {
    "quantity": 0.7615,
    "salient": 1.5156,
    "asked": 0.6133,
}
HEDGE_BELOW = 0.5458
# A quoted value of the asked quantity counts only in a line at least this near the question.
QUANTITY_RELATED = 0.1750
