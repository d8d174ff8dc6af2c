"""Weights of the abstention model (``abstention.py``). Written by ``bench/fit_abstention.py``;
do not edit."""

BIAS = -2.6234
WEIGHTS: dict[str, float] = {
    "support": 0.8246,
    "best": 0.4371,
    "quantity": 0.3650,
    "rank_score": 0.9202,
    "salient": 1.0110,
    "asked": 0.9547,
}
ABSTAIN_BELOW = 0.3800
HEDGE_BELOW = 0.5198
