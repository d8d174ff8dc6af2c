"""Weights of the abstention model (``abstention.py``). Written by ``bench/fit_abstention.py``;
do not edit."""

BIAS = -1.0586
WEIGHTS: dict[str, float] = {
    "support": 0.0000,
    "best": 0.0000,
    "quantity": 0.4836,
    "rank_score": 0.0000,
    "salient": 1.6604,
    "asked": 0.6331,
}
ABSTAIN_BELOW = 0.3600
HEDGE_BELOW = 0.5027
