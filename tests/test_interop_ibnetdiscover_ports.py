"""The quick dump reader's bulk parts against the regular expressions they replace.

core/interop/ibnetdiscover_ports.py reads port lines with numpy instead of one regular
expression per line, and the lines between records are matched with possessive runs: each must
take exactly the lines the plain pattern takes, with the same fields, or (for the port lines,
on the rare shapes it leaves to the line-by-line reader) none at all. Lines are built from the
pieces that decide a match: digits (also non-ASCII ones), hex runs of every length around 16,
optional port GUIDs, blanks, quotes, '#', width and speed tokens, key=value and Chassis text.
"""

import re

from hypothesis import given, settings, strategies as st

from core.interop.ibnetdiscover_ports import MAX_GUID_DIGITS, MAX_PORT_DIGITS, parse_port_lines
from core.interop.ibnetdiscover import parse_ibnetdiscover
from core.interop.ibnetdiscover_read import _BETWEEN, _SPEED, parse_fast, read_ibnetdiscover

# the port-line pattern the quick reader used before it read them with numpy
PORT = re.compile(r'\n\[(\d+)\](?:\([0-9a-fA-F]+\))?[ \t]+"([SHR])-([0-9a-fA-F]+)"\[(\d+)\]'
                  r'(?:\([0-9a-fA-F]+\))?[ \t]*#([^\n]*)[ \t](\d+x[A-Z0-9]+)[ \t]*(?=\n|\Z)')
BETWEEN = re.compile(r'(?:\n[ \t]*(?:#[^\n]*|[A-Za-z_]+=\S*[ \t]*|(?:Non-)?Chassis[^\n]*)?)*')


# Each piece of a port line: its plain forms, then odd ones (not ASCII, too long, not matching)
PIECES = {
    "local": (["1", "7", "36", "144", "007", "123456789"], ["", "1234567890", "\u0663", "x"]),
    "local_guid": (["", "(0c42a1)", "(506b4b030043f9e2)"], ["(12", "()", "(g1)", "(0c42a1030000abcdEF)"]),
    "gap": ([" ", "\t", "  \t", " " * 12], ["", "\u00a0"]),
    "letter": (["S", "H", "R"], ["C", "s"]),
    "guid": (["0", "0c42a1", "0c42a1030000abcd", "EC0D9A0300F548C0"], ["", "g1", "0c42a1030000abcdE", "12 3"]),
    "far": (["1", "25", "144"], ["", "\u0663", "1234567890"]),
    "far_guid": (["", "(0c42a1)"], ["(12", "(0c42a1030000abcdEF01)"]),
    "hash": (["#", "\t#", " # "], ["", "\t"]),
    "comment": (["", " lid 0", ' "node01 HCA-1" lid 5', ' \u00e9 "a#b"'], ['"\t#', "\u00a0"]),
    "blank": ([" ", "\t", "\t "], ["", "\u00a0"]),
    "token": (["4xNDR", "4xXDR", "12xFDR10", "1xSDR", "2xHDR"],
              ["4xFOO", "4x", "x4NDR", "12xFDR10x", "4xNDR\0", "4xndr", ""]),
    "end": (["", " ", "\t\t"], ["x", "\u00a0"]),
}


@st.composite
def port_lines(draw) -> str:
    """A plain port line, with one piece (or none) swapped for an odd one."""
    odd = draw(st.sampled_from([None, *PIECES]))
    piece = {name: draw(st.sampled_from(odds if name == odd else plain))
             for name, (plain, odds) in PIECES.items()}
    return ("[{local}]{local_guid}{gap}\"{letter}-{guid}\"[{far}]{far_guid}{hash}{comment}{blank}{token}{end}"
            .format(**piece))


def _plain(match: re.Match) -> bool:
    """Fields the numpy reader takes (it leaves the others to the line-by-line reader)."""
    local, _, guid, far, _, token = match.groups()
    port_guids = re.findall(r"\(([0-9a-fA-F]+)\)", match.string[:match.start(5)])
    return (all(len(n) <= MAX_PORT_DIGITS and n.isascii() for n in (local, far))
            and all(len(g) <= MAX_GUID_DIGITS for g in [guid, *port_guids]) and token in _SPEED)


@settings(max_examples=600, deadline=None)
@given(st.lists(port_lines(), min_size=1, max_size=3))
def test_port_lines_read_as_the_pattern_reads_them(lines):
    text = "".join("\n" + line for line in lines)
    matches = [PORT.fullmatch("\n" + line) for line in lines]
    parsed = parse_port_lines(text, _SPEED)
    if parsed is None:
        # left to the line-by-line reader: some line is not a port line, or not a plain one
        assert not all(m is not None and _plain(m) for m in matches)
        return
    assert all(m is not None for m in matches)
    for k, match in enumerate(matches):
        local, letter, guid, far, comment, token = match.groups()
        assert parsed.local[k] == int(local) and parsed.far_port[k] == int(far)
        assert chr(parsed.letter[k]) == letter and int(parsed.far_guid[k]) == int(guid, 16)
        assert parsed.speed[k] == _SPEED[token] and parsed.comment(k) == comment


def test_a_real_port_line_reads_with_its_fields():
    line = '\n[1](506b4b030043f9e2)   "S-ec0d9a0300f548c0"[25]   # lid 34 lmc 0 "SwitchIB" lid 29 4xEDR '
    parsed = parse_port_lines(line, _SPEED)
    assert (parsed.local[0], parsed.far_port[0], int(parsed.far_guid[0])) == (1, 25, 0xEC0D9A0300F548C0)
    assert parsed.speed[0] == 100.0 and parsed.comment(0) == ' lid 34 lmc 0 "SwitchIB" lid 29'


between_lines = st.lists(st.tuples(st.sampled_from(["", " ", "\t ", "\u00a0"]), st.sampled_from(
    ["", "#", "# a comment", "vendid=0x2c9", "caguid=0x2c9(2c9)  ", "key=a b", "Chassis=x y", "Chassis 1",
     "Non-Chassis Nodes", "NonChassis", "=x", "sysimgguid=0x1\u00a0x", "Switch 36", "[1]"])), max_size=5)


@settings(max_examples=400, deadline=None)
@given(between_lines)
def test_lines_between_records_match_as_the_plain_pattern_matches_them(lines):
    text = "".join(f"\n{blank}{line}" for blank, line in lines)
    assert (_BETWEEN.fullmatch(text) is None) == (BETWEEN.fullmatch(text) is None)


def test_a_node_seen_only_from_a_port_takes_its_non_ascii_description_from_that_line(tmp_path):
    # The far end's description comes from the port line's comment, cut out of the dump's UTF-8
    # bytes: a description with accents before it must not shift it.
    dump = ('Switch\t36 "S-0000000000000001"\t# "leaf \u00e9t\u00e9 1" lid 1\n'
            '[1]\t"H-00000000000000a1"[1](a1)\t\t# "n\u00f6de01 HCA-1" lid 2 4xNDR\n'
            '[2]\t"H-00000000000000a2"[1](a2)\t\t# "n\u00f6de02 HCA-1" lid 3 2xHDR\n')
    path = tmp_path / "d.txt"
    path.write_text(dump, encoding="utf-8")
    assert parse_fast(dump, "d.txt") is not None
    quick = read_ibnetdiscover(path)
    careful = parse_ibnetdiscover(dump.split("\n"), "d.txt")
    assert list(quick.nodes.items()) == list(careful.nodes.items()) and quick.cables == careful.cables
    assert [n.description for n in quick.nodes.values()] == ["leaf \u00e9t\u00e9 1", "n\u00f6de01 HCA-1",
                                                              "n\u00f6de02 HCA-1"]
    assert [c[4] for c in quick.cables] == [400.0, 100.0]
