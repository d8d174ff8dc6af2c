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

from app.retrieval.query import content_terms, stem, tokenize
from app.retrieval.units import unit_key

CITATION = re.compile(r"\s*\[(\d+)\]")
# A number is read whole: a section number "3.4.1" is looked for as "3.4.1", not as "3.4"
# (which the page never prints on its own).
_QUANTITY = re.compile(r"(?<![\w.])(\d+(?:\.\d+)*)(?:\s?([A-Za-zΩ°%µ]+))?")
_MARKERS = re.compile(r"((?:\s*\[\d+\])+)")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s+")
# Lines that frame an answer rather than claim anything.
_FRAME = re.compile(
    r"^(from the manuals:?|sources:?|\[\d+\] .+ p\.\d+|[^\[\]]{1,80}:)$", re.IGNORECASE
)
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
    """The answer's claims: each run of text with the citation markers that close it (a
    marker covers the sentences before it, back to the previous marker). The sources list
    and framing lines are not claims; text with no marker after it is an uncited claim."""
    body, _ = _split_sources(text)
    return [claim for line in body for _, claim in _segments(line) if claim is not None]


def _split_sources(text: str) -> tuple[list[str], str]:
    parts = re.split(r"(\n\s*Sources:\s*\n)", text, maxsplit=1)
    return parts[0].splitlines(), "".join(parts[1:])


def _segments(line: str) -> list[tuple[str, Claim | None]]:
    """A line's pieces, raw, each with its claim (None for framing and empty pieces)."""
    parts = _MARKERS.split(line)
    out = []
    for i in range(0, len(parts), 2):
        raw, markers = parts[i], parts[i + 1] if i + 1 < len(parts) else ""
        plain = _BULLET.sub("", raw).strip().lstrip(".,;: ")
        numbers = tuple(int(n) for n in CITATION.findall(markers))
        is_claim = plain and not _FRAME.match(plain) and content_terms(plain)
        out.append((raw + markers, Claim(plain, numbers) if is_claim else None))
    return out


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
    terms = content_terms(claim.text)
    found = sum(stem(t) in have for t in terms)
    support = found / len(terms) if terms else 1.0
    return Claim(claim.text, claim.citations, round(support, 3), missing_values(claim.text, cited))


def missing_values(claim: str, evidence: str) -> tuple[str, ...]:
    """Numbers of the claim (with their unit, when it is one) the evidence does not hold
    as a whole number: "48 V" is not found in "RS-485", "13.8 V" is found in "13.8VDC"."""
    text = evidence.lower()
    missing = []
    for match in _QUANTITY.finditer(claim):
        number, unit = match.group(1), match.group(2) or ""
        # A unit the registry knows must follow the number in the evidence too.
        after = rf"\s?{re.escape(unit.lower())}" if unit and unit_key(unit) else ""
        if not re.search(rf"(?<![\d.]){re.escape(number)}(?!\d|\.\d){after}", text):
            missing.append(match.group(0).strip())
    return tuple(missing)


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
    bad = {c.text for c in verdict.unsupported}
    if not bad:
        return text
    if len(bad) >= len({c.text for c in verdict.claims}):
        return None
    body, sources = _split_sources(text)
    kept = []
    for line in body:
        pieces = _segments(line)
        good = [raw for raw, claim in pieces if claim is None or claim.text not in bad]
        had_claims = any(claim is not None for _, claim in pieces)
        if had_claims and not any(c is not None and c.text not in bad for _, c in pieces):
            continue
        kept.append("".join(good).rstrip())
    return ("\n".join(kept).strip() + sources).strip() or None


def abstention(
    titles: Sequence[str],
    queries: Sequence[str],
    closest: str = "",
    named: Sequence[str] = (),
    unprinted: Sequence[str] = (),
    unlisted: Sequence[str] = (),
    foreign: Sequence[str] = (),
    unrelated: Sequence[str] = (),
) -> str:
    """The plain "not in the manuals" answer, naming what was searched. With ``named``
    (the manuals of the equipment the question names) and the closest passage in another
    manual, it says so: that passage is about other equipment. ``unprinted`` names the
    quantities asked for that the manual prints no value of anywhere ("torque"),
    ``unlisted`` the codes it lists others of their form but not these ("E09"),
    ``foreign`` the equipment no manual of the library mentions ("V20"), ``unrelated``
    the quantities the closest passages give only for other things ("time")."""
    where = ", ".join(dict.fromkeys(titles)) or "the library"
    what = "; ".join(f"“{q}”" for q in dict.fromkeys(queries)) or "the question"
    subject = ", ".join(dict.fromkeys(named))
    text = f"The {subject} manual doesn't say." if subject else "The manuals don't say."
    if unprinted:
        names = " or ".join(unprinted)
        article = "an" if names[:1].lower() in "aeiou" else "a"
        text += f" No page of the manual it is about gives {article} {names} value."
    if unlisted:
        codes = " or ".join(dict.fromkeys(unlisted))
        text += f" No page of the manual it is about lists {codes}, though it lists codes like it."
    if unrelated:
        names = " or ".join(dict.fromkeys(unrelated))
        article = "an" if names[:1].lower() in "aeiou" else "a"
        text += f" The passages closest to it give {article} {names} value only for other things."
    if foreign:
        codes = " or ".join(dict.fromkeys(foreign))
        text += (
            f" No manual in the library mentions {codes}: if it is other equipment,"
            " import its manual to ask about it."
        )
    text += f" I searched {where} for {what}."
    if closest and subject:
        text += f" The closest passage was {closest}, in another manual, which is not about it."
    elif closest:
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
