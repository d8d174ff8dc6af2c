"""What makes a question askable, checked before any search runs.

A question with no letter or digit in it ("", "   ", "?!.") gives the searches nothing
to match: the ranker would still return its best pages and the answerer would quote
them, citing pages that have nothing to do with anything. Such a question is declined
with a sentence saying what to type instead, never a traceback or a raw error.
"""

from __future__ import annotations

from collections.abc import Iterator

from app.agent.events import Answer, Done, Event, Token

# Longest question kept whole; a paste of a whole page is cut here (the searches and the
# model's context need no more, and a 50,000-character question must not stall them).
MAX_QUESTION_CHARS = 2000


def question_problem(question: str) -> str:
    """Why ``question`` cannot be answered as asked, or empty when it can."""
    if not question.strip():
        return "There is no question to answer: type a question about your manuals."
    if not any(ch.isalnum() for ch in question):
        return (
            "That question has no words in it: type what you want to know about your "
            "manuals, in words."
        )
    return ""


def clip_question(question: str) -> str:
    """The question, stripped, and cut at MAX_QUESTION_CHARS on a word boundary."""
    text = question.strip()
    if len(text) <= MAX_QUESTION_CHARS:
        return text
    cut = text[:MAX_QUESTION_CHARS]
    return cut[: cut.rfind(" ")] if " " in cut[-200:] else cut


def decline(message: str, mode: str) -> Iterator[Event]:
    """The events of a declined question: the sentence, an abstaining answer, done."""
    yield Token(message)
    yield Answer(message, [], True, [], 0.0, mode)
    yield Done(0.0, 0, "")
