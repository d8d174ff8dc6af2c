"""Weights of the abstention model (``abstention.py``). Written by ``bench/fit_abstention.py``;
do not edit."""

BIAS = -2.6291
WEIGHTS: dict[str, float] = {
    "support": 0.9062,
    "best": 0.5312,
    "quantity": 0.0801,
    "rank_score": 0.5186,
    "salient": 0.6685,
    "asked": 1.2766,
}
ABSTAIN_BELOW = 0.37
HEDGE_BELOW = 0.52
