"""No module of ``app`` imports, however indirectly, a module that imports it back.

Every import counts: at module level, inside functions (lazy imports) and under
``TYPE_CHECKING``. import-linter's layers contract (pyproject.toml) orders the packages;
this orders the modules within them.
"""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest


def import_cycles(package: str) -> list[list[str]]:
    """The groups of modules that import each other (strongly connected components)."""
    graph = grimp.build_graph(package, cache_dir=None)
    edges = {
        m: sorted(i for i in graph.find_modules_directly_imported_by(m) if i.startswith(package))
        for m in graph.modules
    }
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(start: str) -> None:
        # Tarjan's algorithm, iterative: a deep chain of imports must not hit the recursion limit.
        work = [(start, 0)]
        while work:
            node, at = work.pop()
            if at == 0:
                order[node] = low[node] = len(order)
                stack.append(node)
            targets = edges.get(node, [])
            if at < len(targets):
                work.append((node, at + 1))
                nxt = targets[at]
                if nxt not in order:
                    work.append((nxt, 0))
                elif nxt in stack:
                    low[node] = min(low[node], order[nxt])
                continue
            if low[node] == order[node]:
                group = []
                while True:
                    member = stack.pop()
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    cycles.append(sorted(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])

    for module in sorted(edges):
        if module not in order:
            visit(module)
    return cycles


def test_the_app_package_has_no_import_cycles() -> None:
    assert import_cycles("app") == []


def test_the_check_finds_a_cycle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pkg = tmp_path / "cyclic"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from cyclic import b\n")
    (pkg / "b.py").write_text("def f():\n    from cyclic import c\n")
    (pkg / "c.py").write_text("import typing\nif typing.TYPE_CHECKING:\n    import cyclic.a\n")
    (pkg / "d.py").write_text("import cyclic.a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert import_cycles("cyclic") == [["cyclic.a", "cyclic.b", "cyclic.c"]]
