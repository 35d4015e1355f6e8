"""The package's layers: dependencies run one way. Every import counts, those under
``TYPE_CHECKING`` and those inside functions too: a circle through any of them is a
circle a reader has to hold in mind."""

from __future__ import annotations

import ast
from pathlib import Path

import convstate

ROOT = Path(convstate.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = ["convstate", *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The package's modules that ``name`` imports, anywhere in its file."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name in known}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out |= {target} & known
            out |= {f"{target}.{a.name}" for a in node.names} & known
    return out - {name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(name, path, set(modules)) for name, path in modules.items()}


def _circle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [node, nxt] if nxt in path else [node, nxt]
            if nxt not in state and (found := walk(nxt, path + [node])) is not None:
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := walk(start, [])) is not None:
            return found
    return None


def test_the_graph_sees_lazy_and_type_checking_imports() -> None:
    graph = _graph()
    assert "convstate.memory" in graph["convstate"]  # lazily, in the package's __getattr__
    assert "convstate.memory" in graph["convstate.cli"]
    assert _circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]


def test_the_package_has_no_import_circle() -> None:
    assert _circle(_graph()) is None


def test_the_memorys_parts_never_import_it() -> None:
    graph = _graph()
    parts = graph["convstate.memory"] - {"convstate.errors", "convstate.config"}
    assert {"convstate.view", "convstate.assembly", "convstate.compactor"} <= parts
    for part in parts:
        assert "convstate.memory" not in graph[part], part


def test_no_class_is_over_300_lines() -> None:
    # a class a reader can hold: past that, it does more than one job
    long = {f"{name}.{node.name}": node.end_lineno - node.lineno + 1
            for name, path in _modules().items()
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.ClassDef) and node.end_lineno
            and node.end_lineno - node.lineno + 1 > 300}
    assert long == {}


def test_the_memory_is_a_facade_of_at_most_250_lines() -> None:
    tree = ast.parse(_modules()["convstate.memory"].read_text(encoding="utf-8"))
    memory = next(n for n in tree.body
                  if isinstance(n, ast.ClassDef) and n.name == "ConversationMemory")
    assert memory.end_lineno is not None and memory.end_lineno - memory.lineno + 1 <= 250
