"""The `convstate` command, run as a user runs it: a subprocess."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import convstate
from convstate import ConversationMemory
from convstate.cli import load_demo, schema_files
from convstate.store.migrations import MIGRATIONS

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str, cwd: Path | None = None, python: tuple[str, ...] = ()
        ) -> subprocess.CompletedProcess[str]:
    """The command in a subprocess (``python``: before it, code that the interpreter runs
    first, as ``-c``), with the PYTHONPATH this test was given (the code under test)."""
    env = {"COLUMNS": "120", "PATH": "/usr/bin:/bin"}
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.path.abspath(os.environ["PYTHONPATH"])
    cmd = ["-c", "".join(python) + "import sys; from convstate.cli import main; "
           "sys.exit(main(sys.argv[1:]))"] if python else ["-m", "convstate.cli"]
    return subprocess.run([sys.executable, *cmd, *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300, env=env)


# code run before the command: these top-level packages cannot be imported, as on a
# machine without them
def without(*packages: str) -> str:
    return (f"import sys\nblocked = {set(packages)!r}\n"
            "class Blocker:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name.split('.')[0] in blocked:\n"
            "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
            "sys.meta_path.insert(0, Blocker())\n")


def one_line_error(out: subprocess.CompletedProcess[str]) -> str:
    """The error line of a command that failed as it should: exit 1, one line, no
    traceback."""
    assert out.returncode == 1, (out.stdout, out.stderr)
    err = out.stderr.strip()
    assert err.startswith("error: ") and "\n" not in err, err
    return err


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
    # the changed phone: the old number is in the block only as what was replaced
    assert [line for line in block.splitlines() if "13812345678" in line] == [
        '- phone (已更换): "13812345678"']
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


PG_DSN = "postgresql://postgres@127.0.0.1:5432/convstate"


def test_a_postgresql_store_without_the_extra_is_one_line(tmp_path: Path) -> None:
    """No psycopg (no [postgres] extra): every command that opens a store says what to
    install, in one line."""
    no_psycopg = without("psycopg", "psycopg_pool")
    for args in (["inspect", "s"], ["profile", "u"], ["forget", "u"], ["migrate"],
                 ["serve"]):
        err = one_line_error(run(*args, "--store", PG_DSN, python=(no_psycopg,),
                                 cwd=tmp_path))
        assert "pip install" in err, err
        if args != ["serve"] or "FastAPI" not in err:  # (serve needs its own extra first)
            assert 'convstate[postgres]' in err and "'store'" in err, err


def test_an_unreachable_postgresql_is_one_line_and_looking_writes_nothing(
        tmp_path: Path) -> None:
    import pytest

    pytest.importorskip("psycopg_pool", reason="needs convstate[postgres]")
    for command in (["inspect", "s"], ["migrate"]):  # nothing listens on port 1
        err = one_line_error(run(*command, "--store", "postgresql://u:pw@127.0.0.1:1/x",
                                 cwd=tmp_path))
        assert "cannot connect to PostgreSQL at postgresql://127.0.0.1:1/x" in err, err
        assert "write" not in err and "pw" not in err, err


def test_a_file_where_a_folder_goes_and_a_folder_where_a_file_goes(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    (tmp_path / "dir").mkdir()
    qa = str(ROOT / "examples" / "tiny_qa.json")
    for args, name, what in ((["schema", "--out", "file"], "out", "is a file"),
                             (["eval-docs", qa, "--out", "dir"], "out", "is a folder"),
                             (["eval-docs", qa, "--plot", "dir"], "plot", "is a folder"),
                             (["eval", qa, "--plot", "file"], "plot", "is a file"),
                             (["serve", "--openapi", "dir"], "openapi", "is a folder")):
        err = one_line_error(run(*args, cwd=tmp_path))
        if "FastAPI" not in err:  # (serve without its extra says that first)
            assert f"'{name}'" in err and what in err, err
    assert (tmp_path / "file").read_text() == "" and not any((tmp_path / "dir").iterdir())


def test_a_chart_is_where_the_command_says(tmp_path: Path) -> None:
    import pytest

    pytest.importorskip("matplotlib")
    out = run("eval-docs", str(ROOT / "examples" / "tiny_qa.json"), "--plot", "chart",
              cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    said = re.search(r"chart: (\S+)", out.stdout)
    assert said and (tmp_path / said.group(1)).is_file(), out.stdout


def test_forget_of_an_unknown_user_says_so(tmp_path: Path) -> None:
    mem = ConversationMemory("s1", store=str(tmp_path / "f.db"), user_id="u-1")
    mem.add("user", "My phone is 13912345678.")
    mem.close()
    out = run("forget", "u-typo", "--store", "f.db", cwd=tmp_path)
    assert out.returncode == 0 and "erased" not in out.stdout.replace("nothing erased", "")
    assert "'u-typo': no sessions and no profile" in out.stdout, out.stdout
    out = run("forget", "u-1", "--store", "f.db", cwd=tmp_path)
    assert out.returncode == 0 and "1 sessions, 1 turns" in out.stdout, out.stderr


def read_only(folder: Path):  # noqa: ANN201 - a context manager
    """``folder`` made read-only for everyone, root too (tests run as root, whom
    permissions do not stop): the immutable attribute, where the file system has it."""
    import contextlib

    import pytest

    @contextlib.contextmanager
    def made() -> Any:
        done = subprocess.run(["chattr", "+i", str(folder)], capture_output=True, text=True) \
            if shutil.which("chattr") else None
        if done is None or done.returncode != 0:
            pytest.skip("cannot make a folder read-only here (no chattr +i on this file "
                        "system)")
        try:
            yield folder
        finally:
            subprocess.run(["chattr", "-i", str(folder)], check=True)

    return made()


def test_looking_at_a_store_in_a_read_only_folder_works(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    with ConversationMemory("s", store=str(folder / "x.db")) as mem:
        mem.add("user", "My order is SR-20240315-889.")
    before = sorted(p.name for p in folder.iterdir())
    with read_only(folder):
        out = run("inspect", "s", "--store", str(folder / "x.db"), cwd=tmp_path)
        assert out.returncode == 0, out.stderr
        assert "SR-20240315-889" in out.stdout
        err = one_line_error(run("migrate", "--store", str(folder / "x.db"), cwd=tmp_path))
        assert "read-only" in err and "-wal" in err and "inspect" in err, err
        err = one_line_error(run("migrate", "--store", str(folder / "new.db"), cwd=tmp_path))
        assert "read-only" in err and "a new store needs a folder you can write" in err, err
    assert sorted(p.name for p in folder.iterdir()) == before


def test_a_folder_given_as_the_store_says_so(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    for args in (["inspect", "s"], ["migrate"], ["profile", "u"], ["forget", "u"]):
        err = one_line_error(run(*args, "--store", "data", cwd=tmp_path))
        assert "'store'" in err and "data is a folder" in err, err
    import pytest

    from convstate import ConfigError

    with pytest.raises(ConfigError, match="is a folder"):
        ConversationMemory("s", store=str(tmp_path / "data"))


def test_sessions_lists_a_stores_sessions_newest_first(tmp_path: Path) -> None:
    for session, user, turns in (("a", None, 3), ("b", "u-1", 12), ("c", "u-1", 1)):
        with ConversationMemory(session, store=str(tmp_path / "s.db"), user_id=user,
                                context_window=300) as mem:
            for i in range(turns):
                mem.add("user", f"My order SR-20240315-{i:03d} is late, phone 1391234{i:04d}.")
                mem.context()
    out = run("sessions", "--store", "s.db", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = re.findall(r"│ (\w+) +│ +(\d+) │ +(\d+) │ (\d{4}-\d\d-\d\d [\d:]+) │", out.stdout)
    assert [(s, int(t)) for s, t, _, _ in rows] == [("c", 1), ("b", 12), ("a", 3)]
    assert int(rows[1][2]) >= 1 and rows[0][2] == "0"  # b folded, c did not
    out = run("sessions", "--store", "s.db", "--user", "u-1", cwd=tmp_path)
    assert re.findall(r"│ (\w+) +│", out.stdout) == ["c", "b"], out.stdout


def test_compress_counts_with_the_model_given(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps([{"role": "user", "content": "订单 DD20240315889"}]))
    out = run("compress", str(path), "--model", "claude-3-haiku", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "no tokenizer is known for model 'claude-3-haiku'" in out.stderr  # its count
    assert "(default: 8192)" in run("compress", "--help").stdout


def test_an_empty_block_in_the_demo_says_why(tmp_path: Path) -> None:
    out = run("demo", "--lang", "en", "--window", "1200", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    block = out.stdout.split("state block")[1].split("─ tokens ─")[0]
    assert block.strip("─ \n"), "an empty block printed as nothing"
    said = " ".join(block.split())
    assert "a smaller --window folds it" in said or "[Conversation record]" in said
