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


def test_readme_python_runs_in_order(tmp_path: Path) -> None:
    code = "\n".join(blocks("python"))
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "SR-20240315-889" in out.stdout
    assert "I don't want an exchange" in out.stdout
    assert (tmp_path / "support.db").exists()


def test_quickstart_example(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPENAI")}
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "quickstart.py")],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    assert "order: SR-20240315-889" in out.stdout
    assert "phone: (628) 555-0199" in out.stdout
    assert re.search(r"superseded phone: \(415\) 555-0132", out.stdout)
