"""Designs that multiply out beyond what the engine holds are refused up front, with their size."""

import json
import tracemalloc

import pytest

from core.errors import DesignError, DesignTooLargeError, ProjectFileError
from core.evaluate import evaluate
from core.limits import MAX_ACCELERATORS, MAX_BLOCK_DEPTH, check_design_size
from core.model import Block, Design, Link, Node
from core.project import design_to_dict, load_project, save_project


def servers(count: int, block_count: int = 1) -> Design:
    rack = Block("rack", count=block_count, children={
        "nodes": Node("nodes", "DGX-H100", count), "leaf": Node("leaf", "QM9700", 1)},
        links=[Link("l1", "nodes", "leaf", count=count)])
    return Design("big", Block("root", children={"rack": rack}))


def nested(depth: int, count: int) -> Design:
    inner = Block("b0", count=count, children={"gpu": Node("gpu", "DGX-H100")})
    for level in range(1, depth):
        inner = Block(f"b{level}", count=count, children={inner.id: inner})
    return Design("nested", Block("root", children={inner.id: inner}))


def _refused_without_allocating(design, catalog) -> str:
    tracemalloc.start()
    try:
        with pytest.raises(DesignTooLargeError) as info:
            evaluate(design, catalog)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000, "refused only after allocating"
    return str(info.value)


def test_a_count_of_2_to_the_63_is_refused_with_its_size_and_the_limit(catalog):
    message = _refused_without_allocating(servers(2**63), catalog)
    assert message == ("design expands to 7.4e19 accelerators (largest share: rack/nodes, 7.4e19); "
                       "the engine holds at most 10,000,000 (limit in core/limits.py)")


def test_a_bundle_of_10_to_the_12_cables_is_refused(catalog):
    design = servers(4)
    design.root.children["rack"].links[0] = Link("l1", "nodes", "leaf", count=10**12)
    message = _refused_without_allocating(design, catalog)
    assert message.startswith("design expands to 1.0e12 cables (largest share: link rack/l1")
    assert "at most 40,000,000" in message


def test_seventy_nested_blocks_of_two_stop_where_the_repeats_pass_the_limit(catalog):
    message = _refused_without_allocating(nested(70, 2), catalog)
    assert "this block is repeated 33,554,432 times in all" in message
    assert "at most 20,000,000 device units (limit in core/limits.py)" in message


def test_blocks_nested_deeper_than_the_limit_are_refused(catalog):
    message = _refused_without_allocating(nested(MAX_BLOCK_DEPTH + 1, 1), catalog)
    assert f"blocks nested {MAX_BLOCK_DEPTH + 1} deep; the engine holds at most {MAX_BLOCK_DEPTH}" in message


def test_the_accelerator_limit_itself_is_allowed(catalog):
    check_design_size(servers(MAX_ACCELERATORS // 8), catalog)  # 10,000,000 GPUs: fine
    with pytest.raises(DesignTooLargeError, match="design expands to 10,000,008 accelerators"):
        check_design_size(servers(MAX_ACCELERATORS // 8 + 1), catalog)


def test_without_a_catalog_units_and_cables_are_still_checked():
    check_design_size(servers(MAX_ACCELERATORS // 8 + 1))  # accelerators need the catalog
    with pytest.raises(DesignTooLargeError, match="device units"):
        check_design_size(servers(10, block_count=3_000_000))


def test_a_file_names_the_json_path_of_the_count_that_is_too_large(tmp_path, catalog):
    data = design_to_dict(servers(4))
    data["design"]["children"][0]["links"][0]["count"] = 10**12
    path = tmp_path / "big.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ProjectFileError, match=r"^big\.json: \$\.design\.children\[0\]\.links\[0\]\.count: "
                                               r"design expands to 1\.0e12 cables"):
        load_project(path, catalog)


def test_a_count_forced_past_the_model_checks_is_refused_by_evaluate_and_save(tmp_path, catalog):
    design = servers(4)
    # Nodes are frozen (tests/test_model.py); only a script that goes around that gets here.
    object.__setattr__(design.root.children["rack"].children["nodes"], "count", 2.5)
    with pytest.raises(DesignError, match=r"rack/nodes: count must be a whole number of at least 1, got 2\.5"):
        evaluate(design, catalog)
    with pytest.raises(ProjectFileError, match=r"^cannot save p\.json: \$\.design\.children\[0\]"
                                               r"\.children\[0\]\.count: expected integer, got 2\.5"):
        save_project(design, tmp_path / "p.json")
    assert not (tmp_path / "p.json").exists()


def test_a_link_count_forced_to_zero_is_named_by_evaluate(catalog):
    design = servers(4)
    object.__setattr__(design.root.children["rack"].links[0], "count", 0)
    with pytest.raises(DesignError, match=r"^link rack/l1: count must be a whole number of at least 1, got 0$"):
        evaluate(design, catalog)


def test_an_override_changed_in_place_is_refused_by_evaluate(catalog):
    # Nodes are frozen, but their overrides are a dict a script can still change in place.
    design = servers(4)
    design.root.children["rack"].children["nodes"].overrides["max_power_kw"] = float("nan")
    with pytest.raises(DesignError, match=r"^rack/nodes: overrides\.max_power_kw: expected a finite number"):
        evaluate(design, catalog)
