"""The port lines of a well-formed ibnetdiscover dump, parsed in bulk over their bytes with numpy.

Port lines are most of a dump (two per cable: 600,000 in a 100,000-device one). A regular
expression with a group per field takes half a second over them and leaves 3.6 million small
strings to convert and free; here every field is found by stepping all lines at once, one
character class at a time, and numbers are read as arrays. A line is taken only in the shape
the line-by-line reader's port pattern (core/interop/ibnetdiscover.py) reads it:

    [LOCAL](hex)?<blanks>"<S|H|R>-<hex>"[FAR](hex)?<blanks?>#<comment><blank><width>x<speed><blanks?>

and more narrowly (ASCII digits, ports of at most 9 digits, GUIDs of at most 16 hex digits, a
speed token it knows): any other line makes the whole result None, and the caller reads the
dump line by line, which reads or rejects it exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_BLANK = np.zeros(256, dtype=bool)
_BLANK[[ord(" "), ord("\t")]] = True
_DIGIT = np.zeros(256, dtype=bool)
_DIGIT[np.frombuffer(b"0123456789", dtype=np.uint8)] = True
_HEX_VALUE = np.full(256, -1, dtype=np.int8)
for _value, _chars in enumerate(zip("0123456789abcdef", "0123456789ABCDEF")):
    _HEX_VALUE[[ord(c) for c in _chars]] = _value
_KIND_LETTER = np.zeros(256, dtype=bool)
_KIND_LETTER[[ord("S"), ord("H"), ord("R")]] = True
_NOT_BLANK = ~_BLANK
_NOT_BLANK[ord("\n")] = False  # a backward run of non-blanks stops at the line's start
MAX_PORT_DIGITS = 9
MAX_GUID_DIGITS = 16
MAX_TOKEN = 8  # the longest width-and-speed token: "12xFDR10"


@dataclass
class PortLines:
    """One entry per port line, in order."""

    local: np.ndarray        # int64 local port
    letter: np.ndarray       # uint8 far end's kind letter (S, H or R)
    far_guid: np.ndarray     # uint64 far end's GUID
    far_port: np.ndarray     # int64
    speed: np.ndarray        # float64 Gb/s of the width and speed token
    _data: bytes
    _comment: np.ndarray     # (start, end) of each comment in _data

    def comment(self, k: int) -> str:
        """The text after '#' up to the blank before the width and speed token."""
        start, end = self._comment[k]
        return self._data[start:end].decode("utf-8")


def parse_port_lines(text: str, speeds: dict[str, float]) -> PortLines | None:
    """The port lines in ``text`` (each opened by its newline: "\\n[1]..."), or None when one
    of them is not plainly well formed. ``speeds``: the width and speed tokens known."""
    data = text.encode("utf-8")
    pad = MAX_GUID_DIGITS + 4  # newlines after the text: every forward step stops inside
    raw = np.frombuffer(data + b"\n" * pad, dtype=np.uint8)
    size = len(data)
    starts = np.flatnonzero(raw[:size] == 10)
    if len(starts) == 0 or starts[0] != 0:
        return None
    ends = np.append(starts[1:], size)  # each line's closing newline (or the text's end)
    ok = raw[starts + 1] == ord("[")
    local, at = _number(raw, starts + 2)
    ok &= raw[at] == ord("]")
    at = _blanks(raw, _guid_suffix(raw, at + 1), at_least=1)
    ok &= at > 0
    ok &= (raw[at] == ord('"')) & _KIND_LETTER[raw[at + 1]] & (raw[at + 2] == ord("-"))
    letter = raw[at + 1]
    far_guid, at, digits = _hex(raw, at + 3)
    ok &= (digits >= 1) & (digits <= MAX_GUID_DIGITS) & (raw[at] == ord('"')) & (raw[at + 1] == ord("["))
    far_port, at = _number(raw, at + 2)
    ok &= raw[at] == ord("]")
    at = _blanks(raw, _guid_suffix(raw, at + 1), at_least=0)
    ok &= (at > 0) & (raw[at] == ord("#"))
    # the tail, read backwards: trailing blanks, the token, the blank before it
    last = ends - 1 - _run_back(raw, ends - 1, _BLANK, None)
    token_length = _run_back(raw, last, _NOT_BLANK, MAX_TOKEN + 1)
    blank = last - token_length
    ok &= (token_length >= 1) & (token_length <= MAX_TOKEN) & _BLANK[raw[blank]] & (blank > at)
    if not ok.all():
        return None
    speed = _token_speeds(raw, blank + 1, token_length, speeds)
    if speed is None:
        return None
    return PortLines(local, letter, far_guid, far_port, speed, data, np.stack([at + 1, blank], axis=1))


def _number(raw: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The decimal number starting at each ``at`` (-1 where there is none or it is too long)
    and where it ends."""
    value = np.zeros(len(at), dtype=np.int64)
    length = np.zeros(len(at), dtype=np.int64)
    going = np.ones(len(at), dtype=bool)
    for _ in range(MAX_PORT_DIGITS + 1):
        char = raw[at + length]
        going &= _DIGIT[char]
        if not going.any():
            break
        value = np.where(going, value * 10 + (char.astype(np.int64) - 48), value)
        length += going
    bad = (length == 0) | (length > MAX_PORT_DIGITS)
    return np.where(bad, -1, value), np.where(bad, 0, at + length)


def _hex(raw: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The hex number starting at each ``at`` (up to MAX_GUID_DIGITS + 1 digits read), where
    it ends, and its digit count: read through a window of that many characters per line."""
    digits = _HEX_VALUE[_windows(raw, at, MAX_GUID_DIGITS + 1)]
    is_digit = digits >= 0
    first_other = np.argmin(is_digit, axis=1)  # 0 also when every character is a digit
    length = np.where(is_digit[np.arange(len(at)), first_other], MAX_GUID_DIGITS + 1, first_other)
    # the first 16 characters as the nibbles of a big-endian 64-bit number, then shifted down
    # past those after the number's end (only their own 4 bits each, whatever they hold)
    nibbles = digits[:, :MAX_GUID_DIGITS].view(np.uint8) & np.uint8(15)
    pairs = np.ascontiguousarray((nibbles[:, 0::2] << np.uint8(4)) | nibbles[:, 1::2])
    value = pairs.view(">u8").ravel().astype(np.uint64)
    value >>= (4 * (MAX_GUID_DIGITS - np.clip(length, 1, MAX_GUID_DIGITS))).astype(np.uint64)
    return value, at + length, length


def _windows(raw: np.ndarray, at: np.ndarray, width: int) -> np.ndarray:
    """The ``width`` characters from each ``at``, one row each (rows of a strided view: no
    index per character)."""
    return np.lib.stride_tricks.sliding_window_view(raw, width)[at]


def _guid_suffix(raw: np.ndarray, at: np.ndarray) -> np.ndarray:
    """Past an optional "(hex)" (a port GUID) at each ``at``; 0 where "(" opens no such group
    (nothing valid follows it: a blank or '#' is required after the port)."""
    opens = np.flatnonzero(raw[at] == ord("("))
    if len(opens) == 0:
        return at
    _, close, digits = _hex(raw, at[opens] + 1)
    # a run longer than MAX_GUID_DIGITS stops at no ")": that line is read line by line
    valid = (digits >= 1) & (raw[close] == ord(")"))
    out = at.copy()
    out[opens] = np.where(valid, close + 1, 0)
    return out


def _blanks(raw: np.ndarray, at: np.ndarray, at_least: int) -> np.ndarray:
    """Past the run of spaces and tabs at each ``at``; 0 where it is shorter than ``at_least``
    (or ``at`` is 0 already: an earlier part did not match)."""
    length = np.zeros(len(at), dtype=np.int64)
    going = at > 0
    while True:
        going &= _BLANK[raw[at + length]]
        if not going.any():
            break
        length += going
    return np.where((at > 0) & (length >= at_least), at + length, 0)


def _run_back(raw: np.ndarray, at: np.ndarray, members: np.ndarray, limit: int | None) -> np.ndarray:
    """The length (at most ``limit``, when given) of the run of ``members`` ending at each
    ``at``, backwards (no class here holds the newline opening the line, so runs stop there)."""
    length = np.zeros(len(at), dtype=np.int64)
    going = np.ones(len(at), dtype=bool)
    steps = 0
    while limit is None or steps < limit:
        going &= members[raw[at - length]]
        if not going.any():
            break
        length += going
        steps += 1
    return length


def _token_speeds(raw: np.ndarray, start: np.ndarray, length: np.ndarray,
                  speeds: dict[str, float]) -> np.ndarray | None:
    """Gb/s of each width and speed token; None when one is not a known token."""
    offsets = np.arange(MAX_TOKEN)
    inside = offsets < length[:, None]
    chars = np.where(inside, _windows(raw, start, MAX_TOKEN), np.uint8(0))
    if np.any(inside & (chars == 0)):
        return None  # a NUL would read as the token's end
    keys = np.ascontiguousarray(chars).view("<u8").ravel()
    unique, which = np.unique(keys, return_inverse=True)
    rates = []
    for key in unique.tolist():
        token = int(key).to_bytes(MAX_TOKEN, "little").rstrip(b"\0").decode("ascii", "replace")
        rate = speeds.get(token)
        if rate is None:
            return None
        rates.append(rate)
    return np.array(rates, dtype=np.float64)[which.ravel()]
