"""The agent's prompts, as DSPy signatures, and how they are run on local models.

Each signature's docstring is its instruction and its fields are typed; the shared context
(question, history, Atlas, environment, tasks, errors) is added by ``context.with_context``.
``stream_field`` runs a signature through the DSPy bridge's engine and yields one output
field's text token by token (the answer streams while the model writes it), then returns
the parsed outputs; ``read_image`` formats a signature for the vision model.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from pathlib import Path
from typing import Any

import dspy

from app.runtime.dspy_bridge import LanternEngine
from app.runtime.types import Cancel, TextBackend

CONFIDENCE = "how likely this choice is right, from 0.0 to 1.0"


class DecideNextStep(dspy.Signature):
    """Choose the next step toward answering the technician's question from the manuals.

    Pick exactly one tool from `tools` and give its inputs as a JSON object with the tool's
    parameters. Search before answering. When the best confidence is low, search again with
    other words, or within the manual the Atlas routes the question to. Read a page image
    when the answer is in a table, a diagram or a scanned page. Answer when the environment
    holds the answer, or when more searching will not help. Never repeat a step of
    tasks_completed with the same inputs."""

    tools: str = dspy.InputField(desc="the tools available now: name(parameters) -- what it does")
    reasoning: str = dspy.OutputField(desc="one short sentence: why this step")
    tool: str = dspy.OutputField(desc="the name of one available tool")
    tool_inputs: dict[str, Any] = dspy.OutputField(desc="the tool's inputs as a JSON object")
    confidence: float | None = dspy.OutputField(desc=CONFIDENCE)


class AnswerQuestion(dspy.Signature):
    """Answer the technician's question using only the numbered evidence.

    Follow every claim with the number of the evidence that states it, in square brackets,
    like [1]. Give values, codes, terminal names and steps exactly as the manuals do. If the
    evidence does not answer the question, set answerable to false and say that the manuals
    don't say."""

    evidence: str = dspy.InputField(desc="numbered manual pages: [n] title p.N, then its text")
    answerable: bool = dspy.OutputField(desc="whether the evidence answers the question")
    answer: str = dspy.OutputField(desc="the answer, every claim followed by its citation [n]")
    confidence: float | None = dspy.OutputField(desc=CONFIDENCE)


class RouteQuestion(dspy.Signature):
    """Route the technician's question to the manuals that answer it, before searching.

    List the ids (the numbers in square brackets in the Atlas) of the manuals the question
    is about; an empty list when it could be in any of them. Mark the question hard when
    it needs several facts put together, compares products, depends on a model or a
    revision, or asks to be checked carefully."""

    documents: list[int] = dspy.OutputField(desc="ids of the manuals to search first; [] = all")
    hard: bool = dspy.OutputField(desc="whether the question needs a careful, checked answer")
    confidence: float | None = dspy.OutputField(desc=CONFIDENCE)


class GroundingCheck(dspy.Signature):
    """Check an answer against the evidence it cites, claim by claim.

    A claim is supported only when the evidence it cites states it: the same values, codes
    and conditions. An answer that says the manuals don't say is grounded."""

    answer: str = dspy.InputField(desc="the answer to check, with citations [n]")
    evidence: str = dspy.InputField(desc="the numbered evidence the citations refer to")
    grounded: bool = dspy.OutputField(desc="true when every claim is supported")
    unsupported_claims: list[str] = dspy.OutputField(
        desc="each unsupported claim, verbatim from the answer; [] when grounded"
    )


class ReadPage(dspy.Signature):
    """Read the attached manual page image and answer the question from what it shows:
    table cells, diagram labels, LED and terminal charts, scanned text. Quote values
    exactly. Say "not on this page" when the page does not show it."""

    question: str = dspy.InputField()
    page: str = dspy.InputField(desc="which manual page the image is")
    reading: str = dspy.OutputField(desc="what the page shows that answers the question")


def adapter() -> dspy.ChatAdapter:
    """The field format every signature is run with (no silent JSON retry: a malformed
    reply is the loop's to handle)."""
    return dspy.ChatAdapter(use_json_adapter_fallback=False)


def format_messages(
    signature: type[dspy.Signature], inputs: dict[str, Any], demos: Sequence[Any] = ()
) -> list[dict[str, Any]]:
    return adapter().format(signature, demos=list(demos), inputs=inputs)


def parse_reply(signature: type[dspy.Signature], text: str) -> dict[str, Any]:
    """The outputs of a reply; raises dspy's AdapterParseError when it is malformed."""
    return adapter().parse(signature, text)


def stream_field(
    backend: TextBackend,
    predict: dspy.Predict,
    inputs: dict[str, Any],
    field: str,
    *,
    cancel: Cancel = None,
    max_tokens: int = 768,
) -> Generator[str, None, tuple[dict[str, Any], list[dict[str, Any]], str]]:
    """Yield ``field``'s text as the model writes it; return (outputs, prompt, reply).

    The prompt is the predictor's signature and demos in DSPy's chat format, sent through
    the bridge's engine in this thread (DSPy's own streamify needs an event loop thread).
    """
    from dspy.lm15 import Config, Message, Request, TextPart

    messages = format_messages(predict.signature, inputs, predict.demos)
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    turns = tuple(
        Message.user(m["content"])
        if m["role"] == "user"
        else Message.assistant([TextPart(m["content"])])
        for m in messages
        if m["role"] != "system"
    )
    request = Request(
        model=f"lantern/{backend.model_id}",
        messages=turns,
        system=system or None,
        config=Config(max_tokens=max_tokens),
    )
    watcher, parts = FieldWatcher(field), []
    for event in LanternEngine(backend, cancel=cancel).stream(request):
        delta = getattr(event, "delta", None)
        if delta is None:
            continue
        parts.append(delta.text)
        if piece := watcher.feed(delta.text):
            yield piece
    reply = "".join(parts)
    outputs = parse_reply(predict.signature, reply)
    record_trace(predict, inputs, outputs)
    return outputs, messages, reply


def record_trace(predict: dspy.Predict, inputs: dict[str, Any], outputs: dict[str, Any]) -> None:
    """Note a call made outside ``predict()`` in DSPy's trace, as ``predict()`` would, so
    the prompt optimisers see the streamed answer step (demos, reflection) too."""
    trace = dspy.settings.trace
    if trace is None or dspy.settings.max_trace_size <= 0:
        return
    if len(trace) >= dspy.settings.max_trace_size:
        trace.pop(0)
    trace.append((predict, dict(inputs), dspy.Prediction(**outputs)))


class FieldWatcher:
    """Picks one field's text out of a streamed ``[[ ## field ## ]]`` reply.

    Text after the field's header is released as it comes, except a tail that could be the
    start of the next header, which waits for the next piece to tell.
    """

    def __init__(self, field: str) -> None:
        self.header = f"[[ ## {field} ## ]]"
        self.buffer = ""
        self.start = -1
        self.sent = 0
        self.done = False

    def feed(self, text: str) -> str:
        self.buffer += text
        if self.done:
            return ""
        if self.start < 0:
            at = self.buffer.find(self.header)
            if at < 0:
                return ""
            self.start = self.sent = at + len(self.header)
        end = self.buffer.find("[[", self.sent)
        self.done = end >= 0
        cut = end if self.done else len(self.buffer) - self.buffer.endswith("[")
        segment, offset = self.buffer[self.sent : cut], self.sent
        if self.sent == self.start:
            lead = len(segment) - len(segment.lstrip())
            segment, offset = segment[lead:], offset + lead
        # Trailing spaces wait: they may end the field (the parser strips them).
        piece = segment.rstrip()
        if piece:
            self.sent = offset + len(piece)
        return piece


def read_image(
    vlm: Any, question: str, page_label: str, image: Path, *, cancel: Cancel = None
) -> str:
    """Ask the vision model about one page image with the ReadPage signature; a reply that
    ignores the field format is taken as the reading itself."""
    messages = format_messages(ReadPage, {"question": question, "page": page_label})
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    user = "\n\n".join(m["content"] for m in messages if m["role"] == "user")
    reply = vlm.complete(user, [image], system=system, max_tokens=400, cancel=cancel).text
    try:
        return str(parse_reply(ReadPage, reply)["reading"]).strip()
    except Exception:
        return reply.strip()


class CritiqueAnswer(dspy.Signature):
    """Review a draft answer as a careful critic, claim by claim, against the numbered
    evidence it cites.

    A claim is supported only when the evidence it cites states it: the same values, codes
    and conditions. When sources disagree, the newer revision of a manual takes precedence
    over an older one, and the manual of the exact model over a manual for the model's
    family: a claim that rests on the lesser source is a problem. Name each problem and
    what the better source says."""

    draft: str = dspy.InputField(desc="the draft answer, with citations [n]")
    evidence: str = dspy.InputField(desc="the numbered evidence the citations refer to")
    sources: str = dspy.InputField(desc="each evidence number's revision and model scope")
    approved: bool = dspy.OutputField(desc="true when every claim rests on its best source")
    problems: list[str] = dspy.OutputField(desc="each problem found; [] when approved")


class ReviseAnswer(dspy.Signature):
    """Rewrite the draft answer so it fixes every problem the critique names, using only the
    numbered evidence.

    Prefer the newer revision and the exact model's manual. Keep each supported claim with
    its citation [n]; drop what the evidence does not support. If nothing is left, say
    that the manuals don't say."""

    draft: str = dspy.InputField(desc="the draft answer, with citations [n]")
    critique: str = dspy.InputField(desc="the problems the critic found, one a line")
    evidence: str = dspy.InputField(desc="the numbered evidence the citations refer to")
    sources: str = dspy.InputField(desc="each evidence number's revision and model scope")
    answer: str = dspy.OutputField(desc="the revised answer, every claim with its citation [n]")
