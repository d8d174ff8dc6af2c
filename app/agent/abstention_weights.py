"""Weights of the abstention model (``abstention.py``). Written by ``bench/fit_abstention.py``;
do not edit."""

BIAS = -1.0311
WEIGHTS: dict[str, float] = {
    "support": 0.0000,
    "best": 0.0000,
    "quantity": 0.4454,
    "rank_score": 0.0000,
    "salient": 1.6251,
    "asked": 0.6226,
}
ABSTAIN_BELOW = 0.3700
HEDGE_BELOW = 0.4975
