"""The decision loop (Elysia's Tree, smaller and typed).

Each step: tools that fire on their own run first (summarise past its budget); then a
policy picks the next tool (the LLM policy when a model is configured, else, or when it
fails, the rule-based one); the tool runs and its events stream out; its Result or Error
goes into the TreeData for the next decision. Guards: a (tool, inputs) pair never runs
twice; the last allowed step is always the answer; a tool that raises is an Error the
next decision sees, not a crash. Cancelling is checked between steps and between events.
Every run ends with ``done`` and writes its trace.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from pathlib import Path

from app.agent import learning
from app.agent.arbiter import Arbiter
from app.agent.atlas import build_atlas
from app.agent.budget import TokenTally, counted
from app.agent.degraded import announce
from app.agent.events import Answer, Decision, Done, DoneStatus, Error, Event, Result, Status
from app.agent.follow_up import follow_up_pages
from app.agent.library_search import searched_documents, set_context_pages
from app.agent.mode import NO_LLM
from app.agent.policy import Choice, LlmPolicy, RulePolicy
from app.agent.question import clip_question, decline, question_problem
from app.agent.state import Found, Task, TreeData, Turn
from app.agent.tools import Outcome, Resources, Tool, ToolError
from app.agent.tools.answer import AnswerInputs, AnswerTool, stream_text
from app.agent.tools.toolbox import default_tools
from app.agent.trace import TraceRecorder
from app.runtime.types import Cancel, cancel_checker

log = logging.getLogger(__name__)
# The trace's word for how a question ended, as the Done event says it.
ENDED: dict[str, DoneStatus] = {"done": "finished", "cancelled": "stopped", "failed": "failed"}
History = Sequence[Turn | tuple[str, str]]


class Cancelled(Exception):
    """The technician cancelled the question."""


class Tree:
    """An agent over one library: ``ask`` streams a question's events.

    One question at a time (the worker thread that owns the models runs it): the
    resources' clock and cancel flag belong to the question being asked.

    Args:
        resources: The library, searches and models the tools use.
        tools: The tools (default: every tool, in the registered order).
        policy: The LLM policy, or None for no-LLM mode.
        max_steps: Most steps per question (default: ``Settings.max_steps``).
        traces_dir: Where traces go (default: the library's traces folder).
    """

    def __init__(
        self,
        resources: Resources,
        *,
        tools: Sequence[Tool] | None = None,
        policy: LlmPolicy | None = None,
        max_steps: int | None = None,
        traces_dir: Path | None = None,
    ) -> None:
        self.resources = resources
        self.tools = list(tools) if tools is not None else default_tools(resources)
        self.by_name = {tool.name: tool for tool in self.tools}
        self.policy = policy
        self.rules = RulePolicy()
        self.max_steps = max_steps or resources.settings.max_steps
        self.traces_dir = traces_dir or resources.library.traces_dir
        self.mode = "llm" if resources.llm is not None else "no-llm"
        self.llm_choice = NO_LLM  # build_answerer sets the choice it made
        self.program_version: str | None = None  # the saved prompt version loaded, if any
        # Every model call of a question is counted against its token budget.
        self.tally = TokenTally(resources.settings.token_budget)
        if resources.llm is not None:
            resources.llm = counted(resources.llm, self.tally)
        if policy is not None:
            policy.llm = counted(policy.llm, self.tally)
        self.arbiter = Arbiter(resources.settings.llm_override_threshold, resources.clock)
        self.deep_dir: Path | None = None  # the question's deep-mode rounds go here

    def warm_up(self) -> None:
        """Load what the first question would otherwise wait for: the question embedder's
        weights, the unit registry, the stemmer and, for a large library, the vectors and
        full-text postings search keeps in memory (the window calls this in its worker as
        soon as a library is open). A failure here is the first question's to report."""
        from app.retrieval.query import stem
        from app.retrieval.units import registry

        try:
            self.resources.embedder.embed(["warm-up"])
            registry()
            stem("warming")
            warm = getattr(self.resources.text_search, "warm", None)
            if warm is not None:
                warm()
        except Exception as exc:
            log.warning("warm-up: %s", exc)

    def ask(
        self, question: str, history: History | None = None, cancel: Cancel = None
    ) -> Iterator[Event]:
        """Answer one question (a follow-up when ``history`` holds the earlier turns)."""
        problem = question_problem(question)
        if problem:
            yield from decline(problem, self.mode)
            return
        question = clip_question(question)
        turns = tuple(t if isinstance(t, Turn) else Turn(t[0], t[1]) for t in history or ())
        docs = searched_documents(self.resources.text_search)
        search = self.resources.text_search
        atlas = build_atlas(docs, search.product_names(docs), search.kind_names(docs))
        state = TreeData(question.strip(), atlas, turns, max_steps=self.max_steps)
        # A follow-up's searches favour the pages the last answer quoted.
        set_context_pages(self.resources.text_search, follow_up_pages(state))
        trace = TraceRecorder(state.prompt, self.mode, turns)
        self.deep_dir = Path(self.traces_dir) / f"{trace.run_id}.deep" if self.traces_dir else None
        trace.atlas(state.atlas.render())
        self.resources.clock.reset()
        self.resources.cancel = cancel
        self.tally.reset(self.resources.settings.token_budget)
        self.tally.active = True
        self.arbiter.start(learning.calibrator(self.resources.library.store))
        status = "done"
        try:
            yield from self._watch(self._steps(state, trace), cancel_checker(cancel), trace)
        except Cancelled:
            status = "cancelled"
            yield self._error(trace, Error("cancelled", recoverable=False))
        except Exception as exc:  # a bug must not leave the caller without `done`
            log.exception("the agent failed on %r", question)
            status = "failed"
            yield self._error(trace, Error(f"the agent failed: {exc}", recoverable=False))
        finally:
            self.tally.active = False  # also when the caller stops reading early
        version = learning.program_label(self)
        learning.close_record(trace, self.arbiter, self.tally, version)
        seconds = trace.finish(dict(self.resources.clock.seconds), status)
        path = trace.write(self.traces_dir)
        learning.remember(self.resources.library.store, trace, self.arbiter, version)
        ended: DoneStatus = ENDED.get(status, "finished")
        yield Done(
            round(seconds, 4),
            state.iteration,
            str(path or ""),
            status=ended,
            program_version=version,
            tokens=self.tally.used,
        )

    def _watch(
        self, events: Iterator[Event], cancelled: Callable[[], bool], trace: TraceRecorder
    ) -> Iterator[Event]:
        """Pass events on, recording errors and the answer; stop when cancelled."""
        for event in events:
            if isinstance(event, Error):
                trace.error(event)
            elif isinstance(event, Answer):
                # The answer says once that search ran on full text only (see degraded).
                before, event = announce(self.resources.text_search, event)
                yield from before
                trace.answer(event)
            yield event
            if cancelled():
                raise Cancelled

    def _steps(self, state: TreeData, trace: TraceRecorder) -> Iterator[Event]:
        llm = self.policy.llm if self.policy is not None else None
        self.arbiter.route(state, llm, self.resources.cancel)
        while True:
            for tool in self.tools:
                inputs = tool.auto_trigger(state) if state.iteration + 2 < state.max_steps else None
                if inputs is not None:
                    why = f"{tool.name} runs on its own: {tool.trigger or 'its trigger fired'}"
                    yield from self._run(state, trace, Choice(tool.name, inputs, why, "auto"))
            choice, calls = yield from self._decide(state)
            if (yield from self._run(state, trace, choice, calls)):
                return

    def _decide(self, state: TreeData) -> Generator[Event, None, tuple[Choice, tuple]]:
        """The next step: forced answer at the limit, else the LLM's choice, else the rules'."""
        if state.iteration + 1 >= state.max_steps:
            why = f"step limit ({state.max_steps}) reached: answer with what was found"
            return Choice("answer", AnswerInputs(), why, "limit"), ()
        if self.tally.spent and self.resources.llm is not None:
            return (yield from self._budget_spent(state)), ()
        available = {t.name: t for t in self.tools if t.is_available(state)}
        rule = self.rules.decide(state, available)
        if self.policy is None or state.llm_off:
            return self.arbiter.next_step(state, rule, None, None), ()
        unavailable = {
            t.name: t.is_available(state).reason for t in self.tools if t.name not in available
        }
        outcome = self.policy.decide(state, available, unavailable)
        for problem in outcome.problems:
            yield Error(problem, "decision", True, "the rule-based policy decides instead")
        if self.tally.spent:
            return (yield from self._budget_spent(state)), outcome.calls
        if outcome.permanent:
            state.llm_off = outcome.problems[-1] if outcome.problems else "the model failed"
        choice = outcome.choice
        if choice is not None and self._repeats(state, choice):
            message = f"{choice.tool} already ran with these inputs; it is not run twice"
            state.add_error(choice.tool, message)
            yield Error(message, choice.tool, True, "the rule-based policy decides instead")
            choice = None
        return self.arbiter.next_step(state, rule, outcome, choice), outcome.calls

    def _budget_spent(self, state: TreeData) -> Generator[Event, None, Choice]:
        """The question's token budget is spent: answer now with what was found (without
        the model), and say so in the timeline."""
        state.llm_off = state.llm_off or "the question's token budget is spent"
        why = (
            f"token budget spent ({self.tally.used} of {self.tally.budget} tokens): "
            "answer with the best found so far, without the model"
        )
        yield Status(why, "budget")
        return Choice("answer", AnswerInputs(), why, "budget")

    def _repeats(self, state: TreeData, choice: Choice) -> bool:
        tool = self.by_name[choice.tool]
        return not tool.repeatable and (tool.name, tool.run_key(choice.inputs)) in state.ran

    def _run(
        self, state: TreeData, trace: TraceRecorder, choice: Choice, calls: tuple = ()
    ) -> Generator[Event, None, bool]:
        """Run one step; True when it answered (the loop ends)."""
        tool = self.by_name[choice.tool]
        state.iteration += 1
        step, inputs = state.iteration, choice.inputs.model_dump()
        yield Decision(tool.name, choice.reasoning, inputs, step, choice.source)
        if not tool.repeatable:
            state.ran.add((tool.name, tool.run_key(choice.inputs)))
        started = time.perf_counter()
        outcome = yield from self._call(tool, state, choice)
        seconds = round(time.perf_counter() - started, 4)
        if isinstance(outcome, ToolError):
            task = Task(step, tool.name, inputs, choice.reasoning, f"error: {outcome.message}",
                        seconds, False, choice.source)  # fmt: skip
            state.tasks.append(task)
            state.add_error(tool.name, outcome.message)
            trace.step(task, [], calls)
            yield Error(outcome.message, tool.name, outcome.recoverable, outcome.suggestion, step)
            if tool.ends_loop:
                return (yield from self._fallback_answer(state, trace))
            return False
        if outcome.answer is not None:
            outcome = yield from self.arbiter.answer(state, tool, outcome)
        stored = state.environment.add(tool.name, outcome.name or tool.name, outcome.objects)
        objects = [_object_out(found, dup) for found, dup in stored]
        task = Task(step, tool.name, inputs, choice.reasoning, outcome.summary, seconds, True,
                    choice.source)  # fmt: skip
        state.tasks.append(task)
        trace.step(task, objects, calls, outcome.detail)
        yield Result(tool.name, outcome.summary, objects, seconds, step)
        if outcome.answer is not None:
            yield outcome.answer
            return True
        return tool.ends_loop

    def _call(self, tool: Tool, state: TreeData, choice: Choice) -> Generator[Event, None, Outcome]:
        """The tool's events, and its outcome; a tool that raises is a recoverable Error."""
        try:
            if self._deep(tool, state):
                from app.agent.deep import DeepMode

                assert isinstance(tool, AnswerTool) and isinstance(choice.inputs, AnswerInputs)
                deep = DeepMode(tool, self.deep_dir, self.resources.settings.deep_iterations)
                return (yield from deep.run(state, choice.inputs))
            return (yield from tool(state, choice.inputs))
        except Cancelled:
            raise
        except Exception as exc:
            from app.runtime.dspy_bridge import GenerationCancelled

            if isinstance(exc, GenerationCancelled):
                raise Cancelled from exc
            log.warning("tool %s failed: %s", tool.name, exc, exc_info=True)
            return ToolError(f"{tool.name} failed: {exc}", True, "try another tool or other inputs")

    def _deep(self, tool: Tool, state: TreeData) -> bool:
        """Deep mode for this answer: the setting allows it, a model can write, and there
        are pages to check the answer against."""
        from app.agent.deep import wanted

        if not isinstance(tool, AnswerTool) or self.resources.llm is None or state.llm_off:
            return False
        return wanted(self.resources.settings.deep_mode, state) and bool(state.environment.pages())

    def _fallback_answer(
        self, state: TreeData, trace: TraceRecorder
    ) -> Generator[Event, None, bool]:
        """The answer tool failed: quote the manuals without a model, or say it could not."""
        tool = self.by_name.get("answer")
        try:
            assert isinstance(tool, AnswerTool)
            result = yield from tool.extractive(state, reset=True)
            answer = result.answer
        except Exception as exc:
            log.warning("the extractive fallback failed too: %s", exc)
            answer = None
        if answer is None:
            text = "Lantern could not write an answer; the pages it found are listed."
            yield from stream_text(text, reset=True)
            answer = Answer(text, [], True, [], 0.0, self.mode)
        yield answer
        return True

    @staticmethod
    def _error(trace: TraceRecorder, event: Error) -> Error:
        trace.error(event)
        return event


def _object_out(found: Found, duplicate: bool) -> dict[str, object]:
    """An environment object as a Result event carries it (what the UI timeline shows)."""
    return {
        "ref": found.ref,
        "kind": found.kind,
        "document": found.file_name,
        "title": found.title,
        "page": found.page,
        "score": round(found.score, 6),
        "confidence": round(found.confidence, 4),
        "duplicate": duplicate,
    }
