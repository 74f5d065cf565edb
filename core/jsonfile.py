"""Read a JSON file with one-line errors (catalog, workload and project files share this).

Every problem becomes ``error`` (a DesignError subclass) naming the file and, where there is
one, the place: "x.json: invalid JSON at line 3 column 9: ...". Besides malformed JSON this
covers what Python's json module would otherwise turn into a traceback or a huge allocation:

* a file larger than ``MAX_FILE_BYTES`` (core/limits.py) or not a regular file (a FIFO,
  /dev/zero) is refused before reading;
* a UTF-8 byte-order mark is accepted (editors on Windows write one); UTF-16 and UTF-32 files,
  with or without a mark, are refused with a plain "save it as UTF-8" message;
* invalid UTF-8 and lone UTF-16 surrogates (``"\\ud800"``: not Unicode, cannot be printed or
  saved) give the line and column;
* integers longer than Python's 4300-digit conversion limit and nesting deeper than the
  parser's recursion limit (about 1,000 levels) give the line and column instead of a
  ValueError or RecursionError.
"""

from __future__ import annotations

import json
import os
import re
import stat
import sys
from pathlib import Path
from typing import Any

from core.errors import DesignError
from core.limits import MAX_FILE_BYTES

_UTF8_BOM = b"\xef\xbb\xbf"
_WIDE_BOMS = ((b"\x00\x00\xfe\xff", "UTF-32"), (b"\xff\xfe\x00\x00", "UTF-32"),
              (b"\xfe\xff", "UTF-16"), (b"\xff\xfe", "UTF-16"))
# An odd run of backslashes then a surrogate escape that is not half of a proper pair.
_LONE_SURROGATE = re.compile(
    r"(?<!\\)(?:\\\\)*(\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2})")
_LONG_INTEGER = re.compile(r"-?\d{%d,}" % (sys.get_int_max_str_digits() + 1))
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _line_column(text: str | bytes, offset: int) -> str:
    newline = "\n" if isinstance(text, str) else b"\n"
    line = text.count(newline, 0, offset) + 1
    column = offset - (text.rfind(newline, 0, offset) + 1) + 1
    return f"line {line} column {column}"


def _wide_encoding(data: bytes) -> str | None:
    """"UTF-16 (byte-order mark at byte 0)" and the like when ``data`` looks UTF-16/32 encoded:
    a byte-order mark, or JSON's first ASCII character padded with zero bytes."""
    for bom, name in _WIDE_BOMS:
        if data.startswith(bom):
            return f"{name} (byte-order mark at byte 0)"
    head = data[:4]
    if len(head) == 4 and head.count(0) == 3:
        return f"UTF-32 (zero bytes at byte {head.index(0)})"
    if len(head) >= 2 and (head[0] == 0 or head[1] == 0):
        return f"UTF-16 (zero byte at byte {head.index(0)})"
    return None


def _read_bytes(path: Path, error: type[DesignError], what: str) -> bytes:
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise error(f"{path}: is a folder, not a {what} file")
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{path}: not a regular file (cannot read {what} file)")
        if info.st_size > MAX_FILE_BYTES:
            raise error(f"{path}: {info.st_size / 2**20:,.0f} MiB is too large for a {what} file "
                        f"(at most {MAX_FILE_BYTES // 2**20} MiB, limit in core/limits.py)")
        with path.open("rb") as handle:
            # read(n) allocates n bytes first: ask for what stat saw, then follow a file that
            # grows while we read it in 1 MiB steps, never past the limit
            chunks = [handle.read(min(info.st_size, MAX_FILE_BYTES) + 1)]
            total = len(chunks[0])
            while total <= MAX_FILE_BYTES and (chunk := handle.read(min(2**20, MAX_FILE_BYTES + 1 - total))):
                chunks.append(chunk)
                total += len(chunk)
            data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    except FileNotFoundError:
        raise error(f"{path}: no such file (cannot read {what} file)") from None
    except IsADirectoryError:
        raise error(f"{path}: is a folder, not a {what} file") from None
    except OSError as exc:
        raise error(f"{path}: cannot read {what} file ({exc.strerror or exc})") from None
    if len(data) > MAX_FILE_BYTES:  # grew while we read it
        raise error(f"{path}: too large for a {what} file (at most {MAX_FILE_BYTES // 2**20} MiB, "
                    f"limit in core/limits.py)")
    return data


def _decode(data: bytes, path: Path, error: type[DesignError], what: str) -> str:
    wide = _wide_encoding(data)
    if wide:
        raise error(f"{path}: not a text (UTF-8) {what} file: it looks {wide}; save it as UTF-8 JSON")
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM):]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{path}: not a text (UTF-8) {what} file: invalid byte 0x{data[exc.start]:02x} "
                    f"at {_line_column(data, exc.start)} (byte {exc.start})") from None


def _deep_point(text: str, depth_limit: int) -> int:
    """Offset of the bracket where nesting first exceeds ``depth_limit`` (strings skipped)."""
    depth = 0
    for match in _BRACKETS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > depth_limit:
                return match.start()
        elif token in "]}":
            depth -= 1
    return len(text)


def parse_json_text(text: str, where: str, error: type[DesignError]) -> Any:
    """``json.loads`` with every failure as ``error`` "<where>: ... at line L column C"."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        offset = _deep_point(text, sys.getrecursionlimit() // 2)
        raise error(f"{where}: JSON nested too deeply at {_line_column(text, offset)} (the reader "
                    f"holds about {sys.getrecursionlimit() // 2:,} levels; a project needs far fewer)") from None
    except ValueError:  # an integer beyond Python's digit limit
        match = _LONG_INTEGER.search(text)
        place = f" at {_line_column(text, match.start())}" if match else ""
        raise error(f"{where}: number too long{place}: integers have at most "
                    f"{sys.get_int_max_str_digits():,} digits") from None
    surrogate = _LONE_SURROGATE.search(text) if "\\u" in text else None
    if surrogate:
        raise error(f"{where}: invalid text at {_line_column(text, surrogate.start(1))}: "
                    f"{surrogate.group(1)} is half of a UTF-16 surrogate pair, not a character")
    return value


def read_json(path: str | Path, error: type[DesignError], what: str) -> Any:
    """Parse ``path``; any problem raises ``error`` naming the file, e.g. "x.json: no such file"."""
    path = Path(os.fspath(path))
    text = _decode(_read_bytes(path, error, what), path, error, what)
    return parse_json_text(text, str(path), error)
