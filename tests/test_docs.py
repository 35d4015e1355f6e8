"""Every example in README.md and examples/ runs and says what it claims."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text("utf-8")


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", README, re.S)


def test_readme_opens_with_the_two_commands() -> None:
    first = blocks("bash")[0].strip().splitlines()
    assert first[0].endswith("convstate demo")
    assert first[1].endswith("python -m pytest -q")
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest -q" in ci  # CI runs the README's test command
    # ... and first the README's two lines as written, in a venv of their own
    assert "awk '/^```bash$/ {on = 1; next} /^```$/ && on {exit} on' README.md" in ci
    assert 'bash -euo pipefail -c "$README_COMMANDS"' in ci


@pytest.mark.parametrize("command", [
    line.strip() for block in blocks("bash")[1:] for line in block.splitlines()
    if line.startswith("convstate ")])
def test_readme_commands_run(command: str, tmp_path: Path) -> None:
    if "--llm local" in command:
        pytest.importorskip("llama_cpp", reason="needs convstate[local]")
    args = command.split()[1:]
    args = [str(ROOT / a) if a.startswith("examples/") else a for a in args]
    out = subprocess.run([sys.executable, "-m", "convstate.cli", *args], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip()
    assert not _running_in(tmp_path), "the command left a process running (a model server?)"


def _running_in(folder: Path) -> list[str]:
    """The command lines of live processes whose working folder is ``folder`` (Linux's
    /proc; [] elsewhere): what a command started and did not stop."""
    import time

    proc = Path("/proc")
    for _ in range(20):  # a stopped child may take a moment to go
        found = []
        for entry in proc.glob("[0-9]*") if proc.is_dir() else []:
            try:
                if (entry / "cwd").resolve() == folder.resolve():
                    found.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode())
            except OSError:  # gone, or not ours to look at
                continue
        if not found:
            return []
        time.sleep(0.5)
    return found


def test_every_readme_python_block_runs_as_written(tmp_path: Path) -> None:
    # each block on its own (as a reader pastes it), in order, in one folder
    outputs = []
    for k, code in enumerate(blocks("python")):
        out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, f"README python block {k + 1}:\n{out.stderr}"
        outputs.append(out.stdout)
    stdout = "\n".join(outputs)
    assert "SR-20240315-889" in stdout
    assert re.search(r"^raw 0 SR-20240315-889 A\d+$", stdout, re.M)  # where() as typed
    assert "I don't want an exchange" in stdout
    assert (tmp_path / "support.db").exists()
    assert "['I want to complain: order SR-7 came broken.'] open" in stdout
    assert "Never promise a refund date. ['user', 'assistant']" in stdout
    assert "\n14\n" in stdout
    assert "[policy] Card refunds arrive within 5 business days.\n" in stdout
    assert 'From earlier conversations:\n- phone: "13912345678"' in stdout


def test_quickstart_example(tmp_path: Path) -> None:
    out = run_example("quickstart.py", tmp_path)
    assert "order: SR-20240315-889" in out
    assert "phone: (628) 555-0199" in out
    assert re.search(r"superseded phone: \(415\) 555-0132", out)


def run_example(name: str, tmp_path: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    out = subprocess.run([sys.executable, str(ROOT / "examples" / name)], cwd=tmp_path,
                         capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_customer_service_bot_example(tmp_path: Path) -> None:
    out = run_example("customer_service_bot.py", tmp_path)
    assert "order_id: DD20240315889" in out
    assert "conflict: order_id = DD20240401777 (turn 10) was not applied" in out
    assert "phone: 139-8765-4321" in out and "('13812345678', 4, 'superseded')" in out
    assert "refund_method: refund" in out and "urgency: expedite" in out
    assert '- 订单号: "DD20240315889"' in out and '- 处理方式: "refund"' in out


def test_query_state_example(tmp_path: Path) -> None:
    out = run_example("query_state.py", tmp_path)
    assert "order: SR-20240315-889" in out and "phone now: (628) 555-0199" in out
    assert "('(415) 555-0132', 12, 'superseded')" in out
    assert "last fold added: {'anchors': [" in out


def test_render_anywhere_example(tmp_path: Path) -> None:
    out = run_example("render_anywhere.py", tmp_path)
    for fmt in ("text", "markdown", "xml", "json"):
        assert f"--- {fmt} (zh) ---" in out
    assert "<conversation_state" in out and '{"conversation_state":' in out
    assert "system starts with the original prompt: True" in out
    assert "You are a support agent.\n\n【对话状态记录】" in out
