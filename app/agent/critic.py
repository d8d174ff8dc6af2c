"""The critic: before an answer is final, check each claim against the evidence it cites.

A claim is a sentence or list item of the answer with its citation numbers. The lexical
check (no model needed) asks that the cited pages hold most of the claim's content words
and every number and code in it: a quote passes, a value the pages do not contain fails.
In LLM mode the GroundingCheck signature judges meaning as well, and the lexical check is
what a malformed verdict falls back to. An unsupported claim is dropped; an answer with no
supported claim left is replaced by "the manuals don't say", naming what was searched.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.retrieval.query import QUESTION_WORDS, content_terms, stem, tokenize

CITATION = re.compile(r"\s*\[(\d+)\]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\"“])")
# Lines that frame an answer rather than claim anything.
_FRAME = re.compile(r"^(from the manuals:?|sources:?|\[\d+\] .+ p\.\d+)$", re.IGNORECASE)
MIN_SUPPORT = 0.6


@dataclass(frozen=True, slots=True)
class Claim:
    text: str
    citations: tuple[int, ...]
    support: float = 0.0  # share of the claim's content words the cited evidence holds
    missing: tuple[str, ...] = ()  # numbers and codes the cited evidence lacks

    @property
    def supported(self) -> bool:
        return self.support >= MIN_SUPPORT and not self.missing


@dataclass(frozen=True, slots=True)
class Verdict:
    grounded: bool
    claims: tuple[Claim, ...]
    method: str  # "lexical" or "llm"
    note: str = ""

    @property
    def unsupported(self) -> list[Claim]:
        return [c for c in self.claims if not c.supported]


def split_claims(text: str) -> list[Claim]:
    """The answer's claims: list items and sentences, with their citation numbers. The
    sources list at the end and framing lines are not claims."""
    body = re.split(r"\n\s*Sources:\s*\n", text, maxsplit=1)[0]
    claims = []
    for line in body.splitlines():
        line = re.sub(r"^\s*(?:[-*•]|\d+[.)])\s+", "", line).strip()
        if not line or _FRAME.match(line):
            continue
        for sentence in _SENTENCE.split(line):
            numbers = tuple(int(n) for n in CITATION.findall(sentence))
            plain = CITATION.sub("", sentence).strip()
            if plain:
                claims.append(Claim(plain, numbers))
    return claims


def check_lexically(text: str, evidence: Mapping[int, str]) -> Verdict:
    """Each claim against the text of the evidence it cites (see the module docstring)."""
    checked = tuple(_check(claim, evidence) for claim in split_claims(text))
    grounded = bool(checked) and all(c.supported for c in checked)
    return Verdict(grounded, checked, "lexical")


def _check(claim: Claim, evidence: Mapping[int, str]) -> Claim:
    cited = " ".join(evidence.get(n, "") for n in claim.citations)
    if not cited.strip():
        return Claim(claim.text, claim.citations, 0.0, ())
    have = {stem(t) for t in tokenize(cited)}
    terms = [t for t in content_terms(claim.text) if t not in QUESTION_WORDS]
    found = sum(stem(t) in have for t in terms)
    support = found / len(terms) if terms else 1.0
    flat = re.sub(r"\s+", "", cited.lower())
    missing = tuple(n for n in _NUMBER.findall(claim.text) if n not in flat)
    return Claim(claim.text, claim.citations, round(support, 3), missing)


def verdict_from_model(
    outputs: Mapping[str, Any], text: str, evidence: Mapping[int, str]
) -> Verdict:
    """The GroundingCheck's outputs as a Verdict over the same claims as the lexical check:
    a claim the model names unsupported fails, and so does one the lexical check fails on
    numbers (a model misses a changed digit more easily than a string match does)."""
    flagged = [str(c).strip().lower() for c in outputs.get("unsupported_claims") or []]
    lexical = check_lexically(text, evidence)
    claims = []
    for claim in lexical.claims:
        named = any(f and (f in claim.text.lower() or claim.text.lower() in f) for f in flagged)
        if named:
            claim = Claim(claim.text, claim.citations, 0.0, claim.missing)
        elif not claim.missing:
            claim = Claim(claim.text, claim.citations, max(claim.support, MIN_SUPPORT), ())
        claims.append(claim)
    grounded = bool(outputs.get("grounded")) and all(c.supported for c in claims)
    return Verdict(grounded, tuple(claims), "llm")


def revise(text: str, verdict: Verdict) -> str | None:
    """The answer without its unsupported claims, or None when none is left."""
    bad = [c.text for c in verdict.unsupported]
    if not bad:
        return text
    if len(bad) == len(verdict.claims):
        return None
    kept = []
    for line in text.splitlines():
        plain = CITATION.sub("", line)
        if any(b in plain for b in bad):
            for b in bad:
                line = _drop_sentence(line, b)
            if not CITATION.sub("", line).strip(" -*•"):
                continue
        kept.append(line)
    return "\n".join(kept).strip() or None


def _drop_sentence(line: str, claim: str) -> str:
    parts = _SENTENCE.split(line)
    return " ".join(p for p in parts if claim not in CITATION.sub("", p)).rstrip()


def abstention(titles: Sequence[str], queries: Sequence[str], closest: str = "") -> str:
    """The plain "not in the manuals" answer, naming what was searched."""
    where = ", ".join(dict.fromkeys(titles)) or "the library"
    what = "; ".join(f"“{q}”" for q in dict.fromkeys(queries)) or "the question"
    text = f"The manuals don't say. I searched {where} for {what}."
    if closest:
        text += f" The closest passage was {closest}, which does not answer it."
    return text


def check_with_model(
    backend: Any, text: str, evidence_prompt: str, texts: Mapping[int, str], *, cancel: Any = None
) -> Verdict:
    """The GroundingCheck signature's verdict; the lexical one when the model fails."""
    import dspy

    from app.agent.context import call_with_retry, classify_error, run_predict
    from app.agent.signatures import GroundingCheck

    inputs = {"answer": text, "evidence": evidence_prompt}
    try:
        outputs, _, _ = call_with_retry(
            lambda: run_predict(backend, dspy.Predict(GroundingCheck), inputs, cancel=cancel)
        )
    except Exception as exc:
        if classify_error(exc) == "cancelled":
            raise
        lexical = check_lexically(text, texts)
        return Verdict(lexical.grounded, lexical.claims, "lexical", f"model check failed: {exc}")
    return verdict_from_model(outputs, text, texts)
