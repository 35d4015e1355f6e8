"""The `convstate` command, run as a user runs it: a subprocess."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import convstate
from convstate import ConversationMemory
from convstate.cli import load_demo, schema_files
from convstate.store.migrations import MIGRATIONS

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "convstate.cli", *args], capture_output=True,
                          text=True, cwd=cwd, timeout=300, env={"COLUMNS": "120",
                                                                "PATH": "/usr/bin:/bin"})


def test_demo_keeps_every_exact_value_in_a_small_window(tmp_path: Path) -> None:
    out = run("demo", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "48/48" in text and text.count("fold v") >= 3
    # the block and the token summary come last, where a terminal leaves them in view
    block = re.split(r"─+ tokens ─+", text.split("state block")[1])[0]
    assert text.rstrip().splitlines()[-1].startswith("stored in")
    where = dict(re.findall(r'^\w+: (".*?") -> (.+)$', text, re.M))
    for value in ("DD20240315889", "139-8765-4321", "我不要换货", "500元", "必须今天处理完"):
        place = where[json.dumps(value, ensure_ascii=False)]
        assert place in ("block", "raw turns"), value
        assert (place == "block") == (f'"{value}"' in block), value
    # the changed phone: the old number is no longer in the block, only in the state JSON
    assert "13812345678" not in block
    state = json.loads(text.split("state JSON")[1].split("\n", 1)[1].split("\n─")[0])
    old = [a for a in state["anchors"] if a["value"] == "13812345678"]
    assert old and old[0]["status"] == "superseded"
    m = re.search(r"context: (\d+) tokens \(peak (\d+), budget (\d+).*full history: (\d+)",
                  text)
    assert m, text
    context, peak, budget, full = map(int, m.groups())
    assert peak <= budget < full and context < full
    # the demo's store file opens in `convstate inspect`, with the session it names
    session, store = re.search(r"convstate inspect (\S+) --store (\S+)", text).groups()
    shown = run("inspect", session, "--store", store, cwd=tmp_path)
    assert shown.returncode == 0 and "compaction log" in shown.stdout, shown.stderr
    assert "state JSON" not in run("demo", "--window", "4000", cwd=tmp_path).stdout


def test_version() -> None:
    out = run("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"convstate {convstate.__version__}"


def test_demo_in_english(tmp_path: Path) -> None:
    out = run("demo", "--lang", "en", "--format", "xml", "--window", "600", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "<conversation_state" in out.stdout and "SR-20240315-889" in out.stdout
    assert "(628) 555-0199" in out.stdout
    text = run("demo", "--lang", "en", "--window", "400", cwd=tmp_path).stdout
    assert '- [assistant] "' in text  # printed as data: rich reads no markup in the block


def test_compress_json_and_jsonl(tmp_path: Path) -> None:
    demo = load_demo("en")
    msgs = [{"role": "system", "content": demo["system_prompt"]}] + demo["messages"]
    (tmp_path / "c.json").write_text(json.dumps(msgs))
    (tmp_path / "c.jsonl").write_text("\n".join(json.dumps(m) for m in msgs))
    for name in ("c.json", "c.jsonl"):
        out = run("compress", str(tmp_path / name), "--window", "1000")
        assert out.returncode == 0, out.stderr
        context = json.loads(out.stdout)
        assert context[0] == msgs[0]  # the system prompt, untouched
        assert "SR-20240315-889" in context[1]["content"]
        assert context[-1] == msgs[-1]
    out = run("compress", str(tmp_path / "c.json"), "--window", "1000", "--state")
    state = json.loads(out.stdout)
    assert state["folded_through"] > 0 and state["anchors"]


def test_compress_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('[{"role": "boss", "content": "x"}]')
    out = run("compress", str(tmp_path / "bad.json"))
    assert out.returncode == 1 and "role" in out.stderr and "Traceback" not in out.stderr
    (tmp_path / "broken.json").write_text("[{")
    out = run("compress", str(tmp_path / "broken.json"))
    assert out.returncode == 1 and "not valid JSON" in out.stderr
    out = run("compress", str(tmp_path / "missing.json"))
    assert out.returncode == 1 and "cannot read" in out.stderr


def test_schema_files_match_the_models(tmp_path: Path) -> None:
    for name, schema in schema_files().items():
        committed = json.loads((ROOT / "schemas" / name).read_text("utf-8"))
        assert committed == schema, f"schemas/{name} drifted: run `convstate schema`"
    out = run("schema", "--out", str(tmp_path))
    assert out.returncode == 0
    assert json.loads((tmp_path / "state.schema.json").read_text()) == \
        schema_files()["state.schema.json"]


def test_inspect_and_migrate(tmp_path: Path) -> None:
    from convstate import ConversationMemory

    db = tmp_path / "ops.db"
    assert run("migrate", "--store", str(db)).stdout.strip().endswith(
        f"schema version {len(MIGRATIONS)}")
    with ConversationMemory("case-1", store=db, context_window=1000) as mem:
        mem.add_messages(load_demo("zh")["messages"])
        mem.compact()
    out = run("inspect", "case-1", "--store", str(db))
    assert out.returncode == 0, out.stderr
    for text in ("48 turns", "state versions", "compaction log", "DD20240315889", "rules"):
        assert text in out.stdout
    with ConversationMemory("markup", store=db, context_window=1000) as mem:
        mem.add("user", "[bold red]not markup[/bold red] [assistant]")
    out = run("inspect", "markup", "--store", str(db))
    assert "[bold red]not markup[/bold red] [assistant]" in out.stdout
    bad = run("inspect", "nope", "--store", str(db))
    assert bad.returncode == 1 and "no turns for session" in bad.stderr
    missing = run("inspect", "x", "--store", str(tmp_path / "missing.db"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    for out in (bad, missing):  # one line, never a traceback
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_bad_store_files_give_one_line_errors_and_inspect_changes_nothing(tmp_path) -> None:
    empty, text, folder = tmp_path / "empty.db", tmp_path / "text.db", tmp_path / "dir.db"
    empty.write_bytes(b"")
    text.write_text("not a database\n")
    folder.mkdir()
    for args in (["inspect", "s", "--store", str(empty)], ["inspect", "s", "--store", str(text)],
                 ["migrate", "--store", str(text)], ["inspect", "s", "--store", str(folder)],
                 ["migrate", "--store", str(folder)]):
        out = run(*args)
        assert out.returncode == 1, (args, out.stderr)
        assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert empty.read_bytes() == b"" and text.read_text() == "not a database\n"


def test_inspect_shows_control_characters_escaped(tmp_path) -> None:
    db = tmp_path / "esc.db"
    with ConversationMemory("e", store=db, context_window=1000) as mem:
        mem.add("user", "red \x1b[31malert\x1b[0m and a bell \x07")
    out = run("inspect", "e", "--store", str(db))
    assert out.returncode == 0, out.stderr
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "\\x1b[31malert" in out.stdout
