"""Every example in README.md, the docs site's pages and examples/ runs and says what it
claims; the CLI reference is current; the version is the same everywhere."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text("utf-8")
PAGES = {"README.md": README} | {
    f"docs/{p.name}": p.read_text("utf-8") for p in sorted((ROOT / "docs").glob("*.md"))}


def blocks(lang: str, text: str = README) -> list[str]:
    return re.findall(rf"^```{lang}\n(.*?)^```", text, re.S | re.M)


def test_readme_opens_with_the_two_commands() -> None:
    first = blocks("bash")[0].strip().splitlines()
    assert first[0].endswith("convstate demo")
    assert first[1].endswith("python -m pytest -q")
    ci = (ROOT / ".ci" / "run").read_text()
    assert "python -m pytest -q" in ci  # CI runs the README's test command
    # ... and first the README's two lines as written, in a venv of their own
    assert "awk '/^```bash$/ {on = 1; next} /^```$/ && on {exit} on' README.md" in ci
    assert 'bash -euo pipefail -c "$README_COMMANDS"' in ci


def _commands() -> list[str]:
    found = [line.strip() for name, text in PAGES.items()
             for block in blocks("bash", text)[1 if name == "README.md" else 0:]
             for line in block.splitlines() if line.startswith("convstate ")]
    return list(dict.fromkeys(found))


@pytest.mark.parametrize("command", _commands())
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


# What each page's python blocks print, in order: a page's blocks run one by one (as a
# reader pastes them), in one folder, so a later block may reopen an earlier one's store.
PRINTS: dict[str, list[str]] = {
    "README.md": ["order_id: SR-20240315-889", "negative constraint: I don't want an exchange",
                  "owed: [\"I'll email you a prepaid return label today\"]", "\nblock 0\n"],
    "docs/quickstart.md": ["SR-20240315-889", "I don't want an exchange",
                           "You are the returns desk of ShopRight.\ncontext_window 16384"],
    "docs/integrations.md": ["Never promise a refund date. ['user', 'assistant']", "\n14\n",
                             "[policy] Card refunds arrive within 5 business days.\n"],
    "docs/customer-service.md": [
        "['I will send you a return label']\n['What is your order number']\n[] BX-7741-2290",
        "[('I need to change the delivery address for order 7781', 'achieved'), "
        "('I also want a refund for the shipping fee', 'active')]",
        "[('Would you like to add insurance?', False)]",
        "[('require', 'pets'), ('forbid', 'smoking')]",
        'From earlier conversations:\n- phone: "13912345678"', "after erase: [] nowhere"],
    "docs/concepts.md": ['- **order_id**: "SR-20240315-889"', "call you back", "\nTrue\n"],
    "docs/extending.md": ["['I want to complain: order SR-7 came broken.'] open"],
    "docs/operations.md": ["backup: SR-20240315-889"],
}


def run_blocks(page: str, folder: Path) -> str:
    outputs = []
    for k, code in enumerate(blocks("python", PAGES[page])):
        out = subprocess.run([sys.executable, "-c", code], cwd=folder, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, f"{page} python block {k + 1}:\n{out.stderr}"
        outputs.append(out.stdout)
    return "\n".join(outputs)


@pytest.mark.parametrize("page", [p for p in PAGES if blocks("python", PAGES[p])])
def test_every_python_block_runs_as_written(page: str, tmp_path: Path) -> None:
    stdout = run_blocks(page, tmp_path)
    for expected in PRINTS.get(page, []):
        assert expected in stdout, f"{page} does not print {expected!r}:\n{stdout}"
    if page == "docs/quickstart.md":
        assert re.search(r"^raw 0 SR-20240315-889 A\d+$", stdout, re.M)  # where() as typed
        assert (tmp_path / "support.db").exists()


def test_every_page_that_prints_is_checked() -> None:
    assert {p for p in PAGES if blocks("python", PAGES[p])} == set(PRINTS)


def test_cli_reference_is_current() -> None:
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import cli_reference
    finally:
        sys.path.remove(str(ROOT / "docs"))
    assert (ROOT / "docs" / "cli.md").read_text("utf-8") == cli_reference.render(), (
        "docs/cli.md is stale: run python docs/cli_reference.py")


def test_one_version_everywhere() -> None:
    import convstate

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["version"]
    released = re.search(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text("utf-8"),
                         re.M)
    assert released and convstate.__version__ == meta == released.group(1)


def test_readme_stays_short_and_points_into_the_docs() -> None:
    assert len(README.splitlines()) <= 250
    assert len((ROOT / "benchmarks" / "RESULTS.md").read_text("utf-8").splitlines()) <= 400
    nav = (ROOT / "mkdocs.yml").read_text("utf-8")
    for page in PAGES:
        if page.startswith("docs/"):
            assert page.removeprefix("docs/") in nav, f"{page} is not in mkdocs.yml's nav"


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
