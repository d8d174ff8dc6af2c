"""Weights of the abstention model (``abstention.py``). Written by ``bench/fit_abstention.py``;
do not edit."""

BIAS = -1.0177
WEIGHTS: dict[str, float] = {
    "support": 0.0000,
    "best": 0.0000,
    "quantity": 0.4513,
    "rank_score": 0.0000,
    "salient": 1.6496,
    "asked": 0.5972,
}
ABSTAIN_BELOW = 0.3600
HEDGE_BELOW = 0.4965
