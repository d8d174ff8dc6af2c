"""Prompt optimisation end to end with a scripted model: MIPROv2 and GEPA run the real agent
loop, the optimised program is saved as a version folder, and a fresh agent loads it.

The scripted model answers any prompt in DSPy's chat field format: decisions search once and
then answer; answers give the key facts only when the instruction was rewritten by the
optimiser (its proposals carry the word TUNED) or for two "easy" questions, so a tuned
program scores better and the easy ones give the optimiser worked examples.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from app.agent.context import DATA_RULE
from app.agent.service import (
    ModelChoice,
    build_answerer,
    latest_program_version,
    load_programs,
    program_version,
    programs,
)
from app.bench.dataset import BenchItem, load_dataset
from app.bench.feedback import FeedbackStore
from app.bench.optimize import (
    Budget,
    OptimizeError,
    OptimizeProgress,
    make_metric,
    optimize,
    score,
    split_items,
    to_example,
)
from app.config import Settings
from app.library.embedding import make_embedder
from app.library.library import Library
from app.runtime.fake import FakeLLM
from tests.helpers.samples import sample_library_copy

IDS = ("s01", "s04", "s10", "s12", "s14", "s15")
EASY = ("AUX+", "PGM2")  # questions the untuned model happens to answer well
FIELD = re.compile(r"^\d+\. `(\w+)` \(([^)]*)\)", re.M)


class ChatModel:
    """A FakeLLM that answers whatever DSPy asks, in the chat adapter's field format."""

    def __init__(self, items: list[BenchItem]) -> None:
        self.by_query = {item.query: item for item in items}
        self.proposals = 0
        self.llm = FakeLLM(default=self.reply, model_id="scripted")

    def reply(self, messages: list[dict[str, Any]]) -> str:
        system = messages[0]["content"] if messages[0]["role"] == "system" else ""
        if "Your output fields are:" not in system:
            return "```\nQuote the exact values from the pages (TUNED).\n```"
        outputs = FIELD.findall(system.split("Your output fields are:")[1].split("All inter")[0])
        last = messages[-1]["content"]
        values = {name: self.value(name, kind, system, last) for name, kind in outputs}
        if "[[ ## completed ## ]]" not in system:
            return json.dumps(values)
        body = "\n\n".join(f"[[ ## {k} ## ]]\n{_text(v)}" for k, v in values.items())
        return body + "\n\n[[ ## completed ## ]]"

    def value(self, name: str, kind: str, system: str, last: str) -> Any:
        question = _field(last, "question")
        if name == "confidence":
            return 0.9
        if name == "hard":
            return False
        if name == "tool":
            return "text_search" if "(no step taken yet)" in last else "answer"
        if name == "tool_inputs":
            return {"query": question} if "(no step taken yet)" in last else {}
        if name in ("answerable", "answer") and question in self.by_query:
            item = self.by_query[question]
            good = "TUNED" in system or any(word in question for word in EASY)
            if name == "answerable":
                return not (good and item.unanswerable)
            if not good:
                return "The manual covers this [1]."
            return "The manuals don't say." if item.unanswerable else f"{item.answer} [1]"
        if kind == "bool":
            return True
        if kind.startswith(("list", "dict")):
            return [] if kind.startswith("list") else {}
        if name in ("proposed_instruction", "new_instruction"):
            self.proposals += 1
            # No "Label:" lead: DSPy strips a short prefix ending in a colon from proposals.
            return f"Quote the exact values from the pages (TUNED {self.proposals})."
        return "Questions about security panel manuals, answered from their pages."


def _field(text: str, name: str) -> str:
    found = re.search(rf"\[\[ ## {name} ## \]\]\n(.*?)(?:\n\n\[\[ ## |\n\nRespond|$)", text, re.S)
    return found.group(1).strip() if found else ""


def _text(value: Any) -> str:
    return json.dumps(value) if isinstance(value, dict | list) else str(value)


@pytest.fixture(scope="module")
def imported(sample_manuals_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The sample manuals imported once (the MiniLM embedder the app ranks with, no OCR);
    tests copy the folder."""
    yield sample_library_copy(tmp_path_factory, "optimize")


@pytest.fixture
def library(imported: Path, tmp_path: Path) -> Iterator[Library]:
    root = tmp_path / "library"
    shutil.copytree(imported, root)
    opened = Library.open(root)
    yield opened
    opened.close()


@pytest.fixture
def items(sample_manuals_dir: Path) -> list[BenchItem]:
    wanted = {item.id: item for item in load_dataset(sample_manuals_dir / "questions.json")}
    return [wanted[i] for i in IDS]


def settings_for(library: Library) -> Settings:
    return Settings(library_dir=library.root, ocr_engine="none", embedder="minilm")


def fresh_agent(library: Library, model: ChatModel) -> Any:
    return build_answerer(
        library,
        settings_for(library),
        embedder=make_embedder("minilm"),
        models=ModelChoice(lambda: model.llm, None, "test"),
    )


def test_miprov2_optimises_saves_a_version_and_a_fresh_agent_loads_it(
    library: Library, items: list[BenchItem]
) -> None:
    model = ChatModel(items)
    seen: list[OptimizeProgress] = []
    report = optimize(
        library,
        settings_for(library),
        items,
        backend=model.llm,
        budget=Budget(auto=None, candidates=2, trials=4),
        embedder=make_embedder("minilm"),
        progress=seen.append,
        dataset="questions.json",
    )

    assert sorted(report.train_ids + report.val_ids) == sorted(IDS)
    assert not set(report.train_ids) & set(report.val_ids)
    assert {"s14", "s15"} & set(report.val_ids), "each category reaches validation"
    assert report.optimizer == "miprov2" and report.from_version is None
    assert report.after is not None and report.after > report.before
    assert set(report.per_item) == set(report.val_ids)
    assert report.version == "v0001" and report.path == library.programs_dir / "v0001"
    saved_files = sorted(p.name for p in report.path.iterdir())
    assert saved_files == ["answer.json", "decide.json", "meta.json", "route.json"]
    meta = json.loads((report.path / "meta.json").read_text())
    assert meta["version"] == "v0001" and meta["optimizer"] == "miprov2"
    assert meta["val_ids"] == list(report.val_ids) and meta["after"] == report.after
    assert {p.stage for p in seen} == {"baseline", "optimising", "checking", "saved"}
    assert not list(library.traces_dir.glob("*.json")), "the optimiser's runs leave no traces"

    agent = fresh_agent(library, model)
    assert program_version(agent) == "v0001" == latest_program_version(library.programs_dir)
    for name, program in programs(agent).items():
        saved = json.loads((report.path / f"{name}.json").read_text())["predict"]
        state = program.dump_state()["predict"]
        assert state["signature"] == saved["signature"] and state["demos"] == saved["demos"]
        assert DATA_RULE in program.predict.signature.instructions
    tuned = programs(agent)["answer"].predict
    assert "TUNED" in tuned.signature.instructions, "the better answer instruction was kept"
    assert any(p.demos for p in (tuned, programs(agent)["decide"].predict)), "worked examples"

    answers = [e for e in agent.ask(items[2].query) if type(e).__name__ == "Answer"]
    assert items[2].key_facts[0] in answers[0].text, "the loaded program steers the answers"


def test_the_auto_optimiser_tunes_only_the_weakest_signature_and_keeps_only_a_gain(
    library: Library, items: list[BenchItem]
) -> None:
    from app.bench.auto_optimize import OptimiseLog, Trigger, run_auto

    model = ChatModel(items)
    budget = Budget(auto=None, candidates=2, trials=3)
    seen: list[OptimizeProgress] = []
    trigger = Trigger("answer", "LLM accuracy 0.40 is below 0.70", 20, 0.4)
    settings, embedder = settings_for(library), make_embedder("minilm")
    record = run_auto(
        library,
        settings,
        trigger,
        backend=model.llm,
        items=items,
        budget=budget,
        embedder=embedder,
        progress=seen.append,
    )

    assert record["kept"] and record["version"] == "v0001" and record["program"] == "answer"
    assert record["after"] > record["before"] and record["val_ids"]
    assert seen and seen[-1].stage == "saved", "progress is reported"
    agent = fresh_agent(library, model)
    assert "TUNED" in programs(agent)["answer"].predict.signature.instructions
    for untouched in ("decide", "route"):
        instructions = programs(agent)[untouched].predict.signature.instructions
        assert "TUNED" not in instructions, f"{untouched} is not the weakest: left as it was"

    # The route does not change what this model answers: no gain, nothing kept.
    again = run_auto(
        library,
        settings_for(library),
        Trigger("route", "fell", 20, 0.5),
        backend=model.llm,
        items=items,
        budget=budget,
        embedder=make_embedder("minilm"),
    )
    assert not again["kept"] and again["version"] is None and "no better" in again["note"]
    runs = OptimiseLog(library.programs_dir).runs()
    assert [r["signature"] for r in runs] == ["answer", "route"]
    assert latest_program_version(library.programs_dir) == "v0001"


def test_gepa_optimises_with_the_reflection_of_the_same_model(
    library: Library, items: list[BenchItem]
) -> None:
    model = ChatModel(items)
    report = optimize(
        library,
        settings_for(library),
        items,
        backend=model.llm,
        optimizer="gepa",
        budget=Budget(auto=None, metric_calls=12),
        embedder=make_embedder("minilm"),
    )

    assert report.optimizer == "gepa" and report.version == "v0001" and report.path
    assert report.after is not None and report.after > report.before
    agent = fresh_agent(library, model)
    assert program_version(agent) == "v0001"
    saved = json.loads((report.path / "answer.json").read_text())["predict"]["signature"]
    loaded = programs(agent)["answer"].predict.signature.instructions
    assert loaded == saved["instructions"] and "TUNED" in loaded, "reflection rewrote the answer"


def test_the_cli_optimises_a_dataset_with_the_technicians_feedback(
    library: Library,
    items: list[BenchItem],
    sample_manuals_dir: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from app import cli
    from app.agent import service

    dataset = tmp_path / "three.json"
    raw = json.loads((sample_manuals_dir / "questions.json").read_text(encoding="utf-8"))
    dataset.write_text(json.dumps([q for q in raw if q["id"] in ("s01", "s10", "s14")]))
    feedback = FeedbackStore(library.store)
    entry = feedback.add(items[3].query, f"{items[3].answer} [1]", rating=1)
    feedback.set_right_page(entry, "Lumen_AX200_User_Manual.pdf", 9)
    model = ChatModel(items)
    monkeypatch.setattr(
        service, "choose_models", lambda *_a, **_k: ModelChoice(lambda: model.llm, None, "llm")
    )
    monkeypatch.setenv("LANTERN_SETTINGS", str(tmp_path / "none.json"))
    monkeypatch.setenv("LANTERN_EMBEDDER", "hashing")
    args = ["optimize", "--dataset", str(dataset), "--library", str(library.root)]
    code = cli.run([*args, "--with-feedback", "--trials", "1", "--val-share", "0.4"])

    out = capsys.readouterr().out
    assert code == 0, out
    assert "validation score: before" in out and "saved v0001" in out
    meta = json.loads((library.programs_dir / "v0001" / "meta.json").read_text())
    assert sorted(meta["train_ids"] + meta["val_ids"]) == [f"fb{entry}", "s01", "s10", "s14"]
    assert meta["feedback_items"] == 1


def test_the_metric_weighs_the_right_page_and_the_key_facts(items: list[BenchItem]) -> None:
    aux, z_wave = items[0], items[4]
    right = [{"document": "Lumen_AX200_Installation_Manual.pdf", "page": 6, "score": 1.0}]
    other = [{"document": "Lumen_AX200_User_Manual.pdf", "page": 2, "score": 1.0}]

    assert score(aux, "13.8 V and 500 mA [1]", False, right).value == 1.0
    assert score(aux, "13.8 V [1]", False, other + right).value == 0.5 * 0.5 + 0.5 * 0.5
    assert score(aux, "", True, right).value == 0.5
    missed = score(aux, "12 V", False, other)
    assert missed.value == 0.0 and "'500 mA'" in missed.feedback and "p.6" in missed.feedback
    assert score(z_wave, "The manuals don't say.", True, other).value == 1.0
    assert score(z_wave, "Yes, it can.", False, other).value == 0.0

    metric = make_metric({aux.id: aux})
    pred = type("P", (), {"answer": "13.8 V and 500 mA", "abstained": False, "pages": right})()
    assert metric(to_example(aux), pred) == 1.0
    assert metric(to_example(aux), pred, trace=[]) is True, "a good run is a worked example"
    graded = metric(to_example(aux), pred, None, "decide.predict", [])
    assert graded.score == 1.0 and graded.feedback


def test_the_split_keeps_every_category_on_both_sides_where_it_can(
    items: list[BenchItem],
) -> None:
    train, val = split_items(items, 0.3, seed=0)
    assert len(train) + len(val) == len(items) and not {i.id for i in train} & {i.id for i in val}
    assert {i.category for i in val} == {i.category for i in items}
    assert split_items(items, 0.3, seed=0) == (train, val), "the same seed, the same split"
    assert split_items(items[:2], 0.01, seed=0)[1], "validation is never empty"
    with pytest.raises(OptimizeError, match="at least 2"):
        split_items(items[:1], 0.3, seed=0)


def test_optimize_refuses_an_unknown_optimiser_or_repeated_ids(
    library: Library, items: list[BenchItem]
) -> None:
    model = ChatModel(items)
    with pytest.raises(OptimizeError, match="unknown optimiser"):
        optimize(library, settings_for(library), items, backend=model.llm, optimizer="sgd")
    with pytest.raises(OptimizeError, match="ids repeat"):
        optimize(library, settings_for(library), [items[0], items[0]], backend=model.llm)


def test_stopping_ends_the_run_without_saving(library: Library, items: list[BenchItem]) -> None:
    model = ChatModel(items)
    runs: list[OptimizeProgress] = []
    report = optimize(
        library,
        settings_for(library),
        items,
        backend=model.llm,
        budget=Budget(auto=None, candidates=2, trials=2),
        embedder=make_embedder("minilm"),
        progress=runs.append,
        should_stop=lambda: len(runs) >= 4,
    )

    assert report.stopped and report.version is None and report.questions_run == 4
    assert latest_program_version(library.programs_dir) is None


def test_load_programs_reads_the_newest_version_and_the_old_flat_layout(
    library: Library, items: list[BenchItem]
) -> None:
    model = ChatModel(items)
    agent = fresh_agent(library, model)
    folder = library.programs_dir
    decide = programs(agent)["decide"]
    for label, where in (("FLAT", folder), ("OLD", folder / "v0001"), ("NEW", folder / "v0010")):
        where.mkdir(parents=True, exist_ok=True)
        decide.predict.signature = decide.predict.signature.with_instructions(f"{label} rules.")
        decide.save(str(where / "decide.json"))
    (folder / "v0011").mkdir()  # an empty version folder is no version

    reloaded = fresh_agent(library, model)
    assert program_version(reloaded) == "v0010"
    assert "NEW rules." in programs(reloaded)["decide"].predict.signature.instructions
    for version in ("v0001", "v0010", "v0011"):
        shutil.rmtree(folder / version)
    assert load_programs(reloaded, folder) == ["decide"] and program_version(reloaded) is None
    assert "FLAT rules." in programs(reloaded)["decide"].predict.signature.instructions
