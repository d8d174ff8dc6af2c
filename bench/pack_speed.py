"""Portable packs: importing manuals from a .lanternpack against importing their PDFs.

Imports the given PDFs (default: the sample manuals) into a temporary library with the
configured embedder (all-MiniLM-L6-v2 unless ``--embedder``) and no OCR, exports them to a
pack, imports the pack into a second library, and prints the times, the pack's size and
whether the two libraries answer the sample questions identically (no-LLM mode).

    .venv/bin/python bench/pack_speed.py [PDF_OR_FOLDER...] [--embedder minilm]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

QUESTIONS = (
    "What voltage and maximum current does the AX-200's AUX+ terminal supply?",
    "How do I reset the installer code?",
    "Which jumper selects the PGM output voltage?",
)


def main() -> int:
    from app.agent.events import Answer
    from app.agent.service import ModelChoice, build_answerer
    from app.config import Settings
    from app.library.embedding import make_embedder
    from app.library.importer import Importer, import_blocking
    from app.library.library import Library
    from app.library.packs import export_pack, import_pack

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="*", type=Path, default=[REPO / "manuals"])
    parser.add_argument("--embedder", default="minilm")
    args = parser.parse_args()
    embedder = make_embedder(args.embedder)
    settings = Settings(ocr_engine="none", embedder=args.embedder)
    with tempfile.TemporaryDirectory() as tmp:
        source = Library.open(Path(tmp) / "source")
        embedder.embed(["warm up"])  # model loading is not import time
        t0 = time.perf_counter()
        results = import_blocking(
            Importer(source, settings, embedder=embedder, ocr=None), args.paths
        )
        from_pdf = time.perf_counter() - t0
        pages = sum(r.pages for r in results if r.status == "imported")
        t1 = time.perf_counter()
        pack = Path(export_pack(source, Path(tmp) / "manuals.lanternpack").path)
        exported = time.perf_counter() - t1
        target = Library.open(Path(tmp) / "target")
        t2 = time.perf_counter()
        import_pack(target, pack, embedder.name)
        from_pack = time.perf_counter() - t2

        def answers(library: Library) -> list[tuple[str, object]]:
            agent = build_answerer(
                library, settings.model_copy(update={"library_dir": library.root}),
                embedder=embedder, models=ModelChoice(None, None, "bench"),
            )  # fmt: skip
            found = []
            for question in QUESTIONS:
                answer = next(e for e in agent.ask(question) if isinstance(e, Answer))
                found.append((answer.text, answer.citations))
            return found

        same = answers(source) == answers(target)
        print(f"{len(results)} manuals, {pages} pages, embedder {embedder.name}")
        print(f"import from PDFs      {from_pdf:7.2f} s")
        print(f"export to a pack      {exported:7.2f} s  ({pack.stat().st_size / 1e6:.1f} MB)")
        print(f"import from the pack  {from_pack:7.2f} s  ({from_pdf / from_pack:.0f}x faster)")
        print(f"identical answers on {len(QUESTIONS)} questions: {same}")
        source.close()
        target.close()
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
