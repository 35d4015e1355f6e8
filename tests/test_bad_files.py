"""A corpus of bad files fed to every command that reads one: each answer is one line
of error and exit code 1 — never a traceback — or, for a file that is fine after all
(UTF-16 with its byte-order mark), the normal answer."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from convstate.cli import main

CORPUS = {
    "empty.json": b"",
    "text.json": b"not json at all",
    "null.json": b"[null]",
    "numbers.json": b"[1, 2]",
    "object.json": b'{"a": 1}',
    "deep.json": b"[" * 100_000 + b"]" * 100_000,
    "bignumber.json": b'[{"role": "user", "content": "x", "n": ' + b"9" * 5_000 + b"}]",
    "binary.json": bytes(range(256)) * 8,
    "badrole.json": b'[{"role": "boss", "content": "x"}]',
    "latin1.json": '[{"role": "user", "content": "café"}]'.encode("latin-1"),
    "truncated.jsonl": b'{"role": "user", "content": "hi"}\n{"role": "assis',
    "longnumber.json": b'[{"role": "user", "content": "hi", "n": ' + b"9" * 5000 + b"}]",
}
COMMANDS = [["compress", "{f}"], ["eval", "{f}"], ["eval-docs", "{f}"],
            ["inspect", "s", "--store", "{f}"], ["profile", "u", "--store", "{f}"]]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("bad")
    for name, data in CORPUS.items():
        (folder / name).write_bytes(data)
    (folder / "missing.json").unlink(missing_ok=True)
    os.mkdir(folder / "folder.json")
    return folder


@pytest.mark.parametrize("name", [*CORPUS, "missing.json", "folder.json"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_every_command_answers_a_bad_file_in_one_line(corpus, name, command, capsys) -> None:
    args = [a.format(f=corpus / name) for a in command]
    assert main(args) == 1, args
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "\n" not in err, err


@pytest.mark.parametrize("command", ["eval", "eval-docs"])
def test_a_measure_of_nothing_is_an_error(tmp_path: Path, command: str, capsys) -> None:
    path = tmp_path / "none.json"
    path.write_text("[]")
    assert main([command, str(path)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: ") and "no " in err and "\n" not in err, err


def test_a_utf16_file_with_its_mark_is_read(tmp_path: Path, capsys) -> None:
    path = tmp_path / "utf16.json"
    path.write_bytes('[{"role": "user", "content": "订单 DD20240315889"}]'.encode("utf-16"))
    assert main(["compress", str(path)]) == 0
    assert "DD20240315889" in capsys.readouterr().out


def test_a_fault_names_where_it_is(tmp_path: Path, capsys) -> None:
    """The line of the file (JSONL), the index of the message (a bad role)."""
    cases = {"t.jsonl": (b'{"role": "user", "content": "hi"}\n\n{"role": "assis', "line 3"),
             "r.json": (b'[{"role": "user", "content": "hi"}, {"role": "boss", '
                        b'"content": "x"}]', "messages[1].role"),
             "n.json": (b'[{"role": "user", "content": ' + b"9" * 5000 + b"}]",
                        "a number too long")}
    for name, (data, where) in cases.items():
        (tmp_path / name).write_bytes(data)
        assert main(["compress", str(tmp_path / name)]) == 1
        err = capsys.readouterr().err.strip()
        assert where in err and "\n" not in err, err
        assert "line 1 column" not in err  # not the line within the record


def test_add_messages_of_one_message_says_so() -> None:
    from convstate import ConversationMemory, InMemoryStore, InvalidMessageError

    mem = ConversationMemory("m", store=InMemoryStore())
    with pytest.raises(InvalidMessageError, match="add_message") as err:
        mem.add_messages({"role": "user", "content": "hi"})  # type: ignore[arg-type]
    assert err.value.field == "messages" and mem.history() == []
