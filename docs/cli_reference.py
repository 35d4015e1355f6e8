"""Write docs/cli.md: `convstate --help` and every subcommand's, as the parser gives them.

Run `python docs/cli_reference.py` after changing the command; tests/test_docs.py fails
while docs/cli.md differs from what this prints.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

PAGE = Path(__file__).with_name("cli.md")
HEAD = """# CLI reference

Generated from the `convstate` command's own parser by `python docs/cli_reference.py`
(a test fails when this page is not current). Every subcommand's `--help` says the same.
"""


def render() -> str:
    """The page: the top-level help, then one section per subcommand."""
    os.environ["COLUMNS"] = "88"  # argparse wraps to the terminal: fix it for a stable page
    from convstate.cli import _parser

    parser = _parser()
    sections = [HEAD, "## convstate\n", _block(parser.format_help())]
    for name, sub in _subcommands(parser).items():
        sections += [f"## convstate {name}\n", _block(sub.format_help())]
    return "\n".join(sections)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _block(text: str) -> str:
    return f"```text\n{text.rstrip()}\n```\n"


if __name__ == "__main__":
    PAGE.write_text(render(), "utf-8")
    sys.stdout.write(f"wrote {PAGE}\n")
