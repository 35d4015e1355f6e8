"""The package surface: every public name resolves, is documented, and loads lazily."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import convstate

INIT = Path(convstate.__file__)


def _loaded_after(code: str, cwd: Path) -> set[str]:
    out = subprocess.run([sys.executable, "-c", f"{code}\nimport sys\nprint(*sys.modules)"],
                         capture_output=True, text=True, check=True, cwd=cwd)
    return set(out.stdout.split())


def test_import_convstate_loads_nothing_heavy(tmp_path: Path) -> None:
    loaded = _loaded_after("import convstate\nassert 'ConversationMemory' in dir(convstate)",
                           tmp_path)
    assert not {"pydantic", "tiktoken", "sqlite3", "asyncio", "convstate.memory"} & loaded


def test_a_conversation_does_not_load_documents_async_or_llm_code(tmp_path: Path) -> None:
    loaded = _loaded_after("from convstate import ConversationMemory\n"
                           "m = ConversationMemory('s', store='s.db')\n"
                           "m.add('user', 'order DD20240315889 please')\nm.context()",
                           tmp_path)  # (its files go there, not into the checkout)
    assert "convstate.memory" in loaded
    assert not {"asyncio", "convstate.documents", "convstate.extract.llm", "openai"} & loaded


def test_every_public_name_resolves_and_has_a_docstring() -> None:
    for name in convstate.__all__:
        value = getattr(convstate, name)
        assert getattr(value, "__doc__", None), f"convstate.{name} needs a docstring"


def test_the_type_checking_imports_name_the_same_public_names() -> None:
    tree = ast.parse(INIT.read_text("utf-8"))
    guarded = next(node for node in tree.body if isinstance(node, ast.If))
    names = {alias.asname or alias.name for node in guarded.body
             if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert names == set(convstate.__all__)


def test_a_submodule_import_does_not_hide_the_function_of_the_same_name() -> None:
    import convstate.fold
    import convstate.render  # noqa: F401 - binds the submodule on the package

    assert callable(convstate.render) and callable(convstate.fold)
    assert convstate.render.__module__ == "convstate.render"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="Nope"):
        convstate.Nope  # type: ignore[attr-defined]  # noqa: B018
