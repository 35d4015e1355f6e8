"""Reading a JSON or JSONL file someone hands us: UTF-8, or any Unicode encoding that
starts with a byte-order mark (UTF-16 from a Windows editor); every fault — unreadable,
not text, not JSON, nested too deeply, a number too long to read — a DataError naming
the file, never a traceback."""

from __future__ import annotations

import codecs
import json
from pathlib import Path
from typing import Any

from .errors import DataError

# UTF-32 first: its little-endian mark starts with UTF-16's
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
         (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))


def read_text(path: str | Path) -> str:
    """The file's text."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from None
    encoding = next((name for bom, name in _BOMS if data.startswith(bom)), "utf-8")
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise DataError(f"{path} is not {encoding.upper()} text (byte {exc.start})") from None


def read_json(path: str | Path, lines: bool = False) -> Any:
    """The file's JSON value (``lines``: one JSON value per non-empty line, as a list; a
    fault names the line of the file)."""
    text = read_text(path)
    if not lines:
        return _parsed(text, str(path))
    return [_parsed(line, f"{path} line {number}", one_line=True)
            for number, line in enumerate(text.splitlines(), 1) if line.strip()]


def _parsed(text: str, where: str, one_line: bool = False) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        at = f"{exc.msg} (column {exc.colno})" if one_line else str(exc)
        raise DataError(f"{where} is not valid JSON: {at}") from None
    except RecursionError:
        raise DataError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:  # valid JSON Python cannot hold: an integer of 4,300+ digits
        raise DataError(f"{where}: a value Python cannot read, a number too long "
                        f"({str(exc).split(':')[0]})") \
            from None
