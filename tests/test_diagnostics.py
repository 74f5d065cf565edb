"""Warnings: every code has one severity from one table; an evaluation shows each code once,
errors first; reports carry the severity."""

import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from core.catalog import default_catalog
from core.diagnostic_codes import CODES, SEVERITIES
from core.diagnostics import MERGED_SHOWN, Diagnostic, merge_diagnostics
from core.evaluate import evaluate, evaluation_to_json
from core.model import Block, Design, Link, Node
from core.report import render_report

ROOT = Path(__file__).resolve().parent.parent


def test_every_code_raised_in_core_has_a_severity_and_a_meaning():
    raised = set()
    for path in (ROOT / "core").rglob("*.py"):
        raised |= set(re.findall(r'Diagnostic\(\s*"([A-Z_]+)"', path.read_text()))
    assert len(raised) > 30
    assert raised <= set(CODES), sorted(raised - set(CODES))
    assert all(info.severity in SEVERITIES and info.meaning for info in CODES.values())


def test_the_docs_page_lists_the_table():
    rows = re.findall(r"^\| `([A-Z_]+)` \| (\w+) \| (.+) \|$",
                      (ROOT / "docs" / "warnings.md").read_text(), re.M)
    assert {code: (severity, meaning) for code, severity, meaning in rows} == {
        code: (info.severity, info.meaning) for code, info in CODES.items()}


codes = st.sampled_from(sorted(CODES))
diagnostics = st.lists(st.builds(
    Diagnostic, codes, st.sampled_from(["a", "b", "c", "d", "e"]),
    st.lists(st.sampled_from(["x", "y/z", "w"]), max_size=2).map(tuple)), max_size=25)


@given(diagnostics)
def test_merged_warnings_have_each_code_once_errors_first_and_every_component(raised):
    merged = merge_diagnostics(raised)
    assert [d.code for d in merged] == sorted({d.code for d in raised},
                                              key=lambda c: (SEVERITIES.index(CODES[c].severity), c))
    for entry in merged:
        same = [d for d in raised if d.code == entry.code]
        messages = list(dict.fromkeys(d.message for d in same))
        assert set(entry.components) == {c for d in same for c in d.components}
        assert len(entry.components) == len(set(entry.components))
        if len(messages) == 1:
            assert entry.message == messages[0]
        else:
            assert entry.message.startswith(f"{len(messages)} cases: ")
            assert all(m in entry.message for m in messages[:MERGED_SHOWN])
            assert (f"and {len(messages) - MERGED_SHOWN} more" in entry.message) == (
                len(messages) > MERGED_SHOWN)


def test_an_unknown_code_counts_as_a_warning_rather_than_failing():
    assert Diagnostic("SOMETHING_NEW", "text").severity == "warning"


def _overfull_leaves() -> Design:
    """Three leaf groups, each with more cables drawn than it has ports, and a lonely server."""
    root = Block("root")
    for name in ("a", "b", "c"):
        root.children[f"servers-{name}"] = Node(f"servers-{name}", "DGX-H100", 16)
        root.children[f"leaf-{name}"] = Node(f"leaf-{name}", "QM9700", 1)
        root.links.append(Link(name, f"servers-{name}", f"leaf-{name}", count=128))
    root.children["lonely"] = Node("lonely", "DGX-H100", 1)
    return Design("bad", root)


def test_an_evaluation_shows_each_code_once_with_all_its_components():
    ev = evaluate(_overfull_leaves(), default_catalog())
    codes = [w.code for w in ev.warnings]
    assert len(codes) == len(set(codes))
    (ports,) = [w for w in ev.warnings if w.code == "SWITCH_PORTS_EXCEEDED"]
    assert ports.message.startswith("3 cases: ") and ports.severity == "error"
    assert set(ports.components) == {"leaf-a", "leaf-b", "leaf-c"}
    ranks = [SEVERITIES.index(w.severity) for w in ev.warnings]
    assert ranks == sorted(ranks) and ranks[0] == 0 and ranks[-1] == 2
    warnings = evaluation_to_json(ev)["warnings"]
    assert [w["code"] for w in warnings] == codes
    assert all(w["severity"] == CODES[w["code"]].severity for w in warnings)


def test_reports_show_each_warnings_severity():
    ev = evaluate(_overfull_leaves(), default_catalog())
    assert "- error: **SWITCH_PORTS_EXCEEDED**: 3 cases:" in render_report(ev, "md")
    assert "<li class='error'>error: <b>SWITCH_PORTS_EXCEEDED</b>" in render_report(ev, "html")
    assert "Warnings,SWITCH_PORTS_EXCEEDED,error,3 cases:" in render_report(ev, "csv")
    assert "Warnings,NO_WORKLOAD,info," in render_report(ev, "csv")
