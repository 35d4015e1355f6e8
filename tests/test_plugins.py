"""Registries: built-ins and plugins alike. A plugin is a real installed distribution
(a dist-info with an entry point, on the path of a fresh interpreter) that adds a block
format, an extractor and a store without touching the package."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from convstate import ConfigError, ConversationState, render
from convstate.registry import EXTRACTORS, FORMATS, STORES, Registry
from convstate.store import open_store

PLUGIN = '''
import json
from convstate import RuleExtractor, SQLiteStore
from convstate.registry import EXTRACTORS, FORMATS, STORES

def _lines(rows, labels, dropped, provenance):
    return "\\n".join(f"{r.section}: {json.dumps(r.value, ensure_ascii=False)}" for r in rows)

class Shouting(RuleExtractor):
    name = "shouting"

def register():
    FORMATS.register("lines", _lines)
    EXTRACTORS.register("shouting", lambda **options: Shouting())
    STORES.register("memo", lambda target, readonly: SQLiteStore(":memory:"))
'''

USE = '''
from convstate import ConversationMemory, render
from convstate.registry import EXTRACTORS
from convstate.store import open_store
mem = ConversationMemory("s", store=open_store("memo://x"), context_window=300,
                         extractor=EXTRACTORS.get("shouting")(), state_format="lines")
for i in range(12):
    mem.add("user", f"My order number is DD2024031588{i}, where is it?")
    mem.add("assistant", "Let me check that order for you right now.")
    mem.context()
print(mem.compactions()[0].extractor)
print(render(mem.state, format="lines").splitlines()[0])
'''


def test_a_plugin_adds_a_format_an_extractor_and_a_store(tmp_path: Path) -> None:
    (tmp_path / "convstate_lines.py").write_text(PLUGIN)
    info = tmp_path / "convstate_lines-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: convstate-lines\n"
                                   "Version: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[convstate.plugins]\nlines = convstate_lines:register\n")
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(USE)], cwd=tmp_path,
                         env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    extractor, line = out.stdout.splitlines()
    assert extractor == "shouting" and line.startswith('anchors: "DD2024031588')


def test_built_ins_are_registered_like_plugins() -> None:
    assert {"text", "markdown", "xml", "json"} <= set(FORMATS.names())
    assert {"rules", "llm", "hybrid"} <= set(EXTRACTORS.names())
    assert {"sqlite", "postgresql"} <= set(STORES.names())
    assert EXTRACTORS.get("rules")(model="ignored").name == "rules"
    with pytest.raises(ConfigError, match="yaml"):
        render(ConversationState(), format="yaml")
    with pytest.raises(ConfigError, match="store"):
        open_store("mongodb://localhost/x")


def test_a_registry_refuses_a_nameless_part() -> None:
    with pytest.raises(ConfigError):
        Registry[int]("thing").register("", 1)
