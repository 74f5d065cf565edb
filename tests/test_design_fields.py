"""The field rules: their one-call fast paths accept only what the rules accept unchanged."""

import math

from hypothesis import given
from hypothesis import strategies as st

import pytest

from core.design_fields import (BLOCK_RULES, LINK_RULES, NODE_RULES, FieldProblem, block_fields_ok,
                                check_metadata, link_fields_ok, node_fields_ok, number_rule)
from core.errors import DesignError

# values near every edge the rules draw: types, signs, ±1e9 coordinates, id characters, lengths
values = st.one_of(
    st.integers(-2, 3), st.sampled_from([0.0, -0.0, 1e9, -1e9, 1e9 + 1, 1e6, 1e6 + 1, 2**63]),
    st.floats(), st.booleans(), st.none(), st.sampled_from(["", "a", "a b", "é", "su/leaf", "x" * 201,
                                                          "scale-out", "fiber", "leaf", "a//b", "/a"]),
    st.text(max_size=5), st.dictionaries(st.text(max_size=3), st.floats(), max_size=1),
)


NODE = {"id": "nodes", "catalog_id": "DGX-H100", "count": 32, "name": "Compute nodes", "x": 0.0,
        "y": 160.0, "tier": "", "overrides": {}, "failed": 0, "drained": 0, "cooling": ""}
LINK = {"id": "l1", "a": "su/nodes", "b": "leaf", "kind": "scale-out", "speed_gbit_s": 400.0,
        "count": 256, "length_m": 10.0, "medium": "fiber", "failed": 0, "drained": 0}
BLOCK = {"id": "su", "name": "Scalable unit", "count": 4, "x": 0.0, "y": 200.0, "collapsed": True,
         "role": "su", "failed": 0, "drained": 0, "cooling": ""}


def variants(typical: dict):
    """A typical item with one or two fields replaced by edge values."""
    changes = st.dictionaries(st.sampled_from(sorted(typical)), values, min_size=1, max_size=2)
    return changes.map(lambda change: {**typical, **change})


def _agree(fast, rules, fields: dict) -> None:
    if not fast(fields):
        return
    for name, rule in rules.items():
        try:
            stored = rule(fields[name])
        except FieldProblem as problem:  # pragma: no cover - a failure explains itself
            raise AssertionError(f"fast path accepted {name}={fields[name]!r}: {problem}") from None
        assert stored == fields[name] and type(stored) is type(fields[name]), name
        if isinstance(stored, float):
            assert math.isfinite(stored)


@given(variants(NODE))
def test_the_node_fast_path_agrees_with_the_rules(fields):
    _agree(node_fields_ok, NODE_RULES, fields)


@given(variants(LINK))
def test_the_link_fast_path_agrees_with_the_rules(fields):
    _agree(link_fields_ok, LINK_RULES, fields)


@given(variants(BLOCK))
def test_the_block_fast_path_agrees_with_the_rules(fields):
    _agree(block_fields_ok, BLOCK_RULES, fields)


def test_typical_items_take_the_fast_path():
    assert node_fields_ok(NODE) and link_fields_ok(LINK) and block_fields_ok(BLOCK)


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_an_unbounded_number_is_still_finite(value):
    with pytest.raises(FieldProblem, match="expected a finite number"):
        number_rule()(value)
    with pytest.raises(DesignError, match=r"^metadata\.v\[1\]: expected a finite number"):
        check_metadata({"v": [1.0, value]}, "metadata")


@pytest.mark.parametrize("identifier", ["leaf\n", "", "a b", "x" * 201, "su/leaf", 7])
def test_ids_are_checked_whole(identifier):
    from core.design_fields import id_rule  # noqa: PLC0415

    with pytest.raises(FieldProblem, match="invalid id"):
        id_rule(identifier)
