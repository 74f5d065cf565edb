"""Failure what-ifs: failed/drained units in the model and the file, and the degraded evaluation."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.catalog import default_catalog
from core.degrade import degraded_design
from core.errors import DesignError, ProjectFileError
from core.evaluate import evaluate, evaluation_to_json
from core.flatten import flatten
from core.generators.fat_tree import FatTreeOptions, generate_fat_tree
from core.model import Block, Design, Link, Node
from core.operations import SetOutOfService
from core.project import design_from_dict, design_to_dict, load_project, save_project
from core.what_if import with_out_of_service
from core.workload import load_preset
from designer.cli import main

CATALOG = default_catalog()


def fabric(gpus: int = 1024, **options) -> Design:
    """1,024 DGX H100 GPUs: 4 SUs (block ``su`` x4) of 32 servers and 8 leaves, 16 spines."""
    return generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700", **options), CATALOG)


def failed(design: Design, *targets: str) -> dict:
    return evaluation_to_json(evaluate(with_out_of_service(design, list(targets))))["failure"]


@given(st.integers(1, 15))
@settings(max_examples=6, deadline=None)
def test_failed_spines_lower_the_bisection_by_exactly_their_share(k):
    design = fabric()
    spines = design.node("spine").count
    f = failed(design, f"spine:{k}")
    assert f["bisection_tbit_s"] == pytest.approx(f["intact"]["bisection_tbit_s"] * (spines - k) / spines)
    assert f["lost_bisection_fraction"] == pytest.approx(k / spines)
    assert f["gpus_lost"] == 0 and f["lost_scale_out_fraction"] == 0


def test_a_failed_leaf_takes_its_servers_rail():
    design = fabric()
    f = failed(design, "su/leaf:1")  # one of 32 leaves: each of its SU's 32 servers loses a rail
    assert f["lost_scale_out_fraction"] == pytest.approx(1 / 32)
    assert f["gpus_lost"] == 0
    degraded = degraded_design(with_out_of_service(design, ["su/leaf:1"]))
    assert degraded.block("su.degraded").count == 1 and degraded.block("su").count == 3
    assert degraded.node("su.degraded/leaf").count == 7
    assert degraded.block("su.degraded").link("l1").count == 32 * 7  # 7 rails a server


def test_units_of_a_repeated_block_come_from_its_first_instances():
    design = fabric()
    # 10 leaves: the first SU loses all 8 (its servers are stranded), the second 2, two are intact
    degraded = degraded_design(with_out_of_service(design, ["su/leaf:10"]))
    runs = {key: (child.count, child.children.get("leaf") and child.children["leaf"].count)
            for key, child in degraded.root.children.items() if isinstance(child, Block)}
    assert runs == {"su.degraded": (1, None), "su.degraded-2": (1, 6), "su": (2, 8)}
    f = failed(design, "su/leaf:10")
    assert f["gpus_stranded"] == 256 and f["gpus_usable"] == 768


def test_a_failed_pod_is_not_expanded_and_takes_its_gpus():
    design = fabric(16384)  # 16 pods (block ``pod``) of 4 SUs and 32 spines, 256 core switches
    intact = flatten(design, CATALOG)
    what_if = degraded_design(with_out_of_service(design, ["pod/spine:4"]))
    # one pod lost 4 spines, the 15 others are intact: two runs of pods, not 16 pods
    assert (what_if.block("pod.degraded").count, what_if.block("pod").count) == (1, 15)
    assert what_if.node("pod.degraded/spine").count == 28
    assert len(flatten(what_if, CATALOG).paths) <= 2 * len(intact.paths)
    f = failed(design, "pod:1")
    assert f["gpus_failed"] == 1024 and f["gpus_lost"] == 1024
    assert f["lost_scale_out_fraction"] == pytest.approx(1 / 16)


def hand_built_planes(planes: int = 2) -> Design:
    """32 DGX H100 whose 8 rails go 4 to each of two planes (a block repeated twice holding a
    leaf-spine fabric), as a multi-plane generator would draw it."""
    plane = Block("plane", count=planes, children={
        "leaf": Node("leaf", "QM9700", count=4), "spine": Node("spine", "QM9700", count=2)},
        links=[Link("up", "leaf", "spine", count=128, speed_gbit_s=400.0)])
    root = Block("root", children={"nodes": Node("nodes", "DGX-H100", count=32), "plane": plane},
                 links=[Link("rails", "nodes", "plane/leaf", count=256, speed_gbit_s=400.0)])
    return Design("two planes", root)


def test_a_failed_plane_loses_its_share_of_the_scale_out_bandwidth():
    f = failed(hand_built_planes(2), "plane:1")
    assert f["lost_scale_out_fraction"] == pytest.approx(1 / 2)
    assert f["scale_out_injection_gbit_s"] == pytest.approx(f["intact"]["scale_out_injection_gbit_s"] / 2)
    assert f["gpus_lost"] == 0


def test_the_job_is_laid_out_again_on_what_is_left_and_the_idle_gpus_cost_gpu_hours():
    design = fabric()
    design.workload = load_preset("llama3-70b")  # TP 8 PP 4 DP 32 on all 1,024 GPUs
    f = failed(design, "su/nodes:1")  # 8 GPUs: one replica of 32 GPUs no longer fits
    assert f["fits"] is False and f["gpus_failed"] == 8
    assert f["relayout"]["parallelism"]["dp"] == 31 and f["relayout"]["method"] == "fewer data-parallel replicas"
    assert f["runs"] and f["mfu"] > 0 and f["training_days"] > f["intact"]["training_days"]
    # 32 GPUs of the 1,024 stop working for the job, give or take the ETTR change
    assert f["gpu_hours_lost_per_day"] == pytest.approx(32 * 24, rel=0.01)
    unhurt = failed(design, "spine:1")
    assert unhurt["fits"] is True and unhurt["relayout"] is None
    assert unhurt["gpu_hours_lost_per_day"] < 24


def test_every_section_describes_the_degraded_design_and_says_so():
    design = fabric()
    out = evaluation_to_json(evaluate(with_out_of_service(design, ["su:1"])))
    assert out["failure"]["applied"] is True and out["counts"]["gpus"] == 768
    assert "OUT_OF_SERVICE" in {w["code"] for w in out["warnings"]}
    plain = evaluation_to_json(evaluate(design))["failure"]
    assert plain["applied"] is False and plain["out_of_service"] == [] and plain["mfu"] is None


def test_drained_units_are_reported_as_drained():
    f = failed(with_out_of_service(fabric(), drained=["su/nodes:2"]))
    assert (f["gpus_failed"], f["gpus_drained"]) == (0, 16)
    assert f["out_of_service"] == [{"target": "su/nodes", "failed": 0, "drained": 2, "of_units": 128}]


def test_a_link_bundle_fails_by_cables():
    f = failed(fabric(), "#l1:64")  # 64 of the 1,024 leaf-spine cables
    assert f["lost_bisection_fraction"] == pytest.approx(64 / 1024)


# --- model, file, undo --------------------------------------------------------------------
def test_failed_state_survives_save_and_load(tmp_path):
    design = with_out_of_service(fabric(), ["su/leaf:3", "su:1", "su#l1:5"], ["spine:2"])
    path = tmp_path / "d.json"
    save_project(design, path)
    loaded = load_project(path)
    assert loaded.content_equal(design)
    assert (loaded.node("su/leaf").failed, loaded.block("su").failed, loaded.node("spine").drained) == (3, 1, 2)
    assert loaded.block("su").link("l1").failed == 5


def test_a_design_without_failures_saves_as_before():
    text = json.dumps(design_to_dict(fabric()))
    assert '"failed"' not in text and '"drained"' not in text


@pytest.mark.parametrize("where, value, message", [
    (("children", 1, "failed"), 17, r"^\$\.design: spine: 17 failed \+ 0 drained but it has 16 units"),
    (("children", 0, "failed"), 5, r"^\$\.design: su: 5 failed \+ 0 drained but it has 4 instances"),
    (("children", 1, "drained"), -1, r"^\$\.design\.children\[1\]\.drained: must be at least 0"),
    (("children", 1, "failed"), 1.5, r"^\$\.design\.children\[1\]\.failed: expected integer"),
])
def test_bad_failed_counts_in_a_file_are_one_line_errors(where, value, message):
    raw = design_to_dict(fabric())
    item = raw["design"]
    for key in where[:-1]:
        item = item[key]
    item[where[-1]] = value
    with pytest.raises(ProjectFileError, match=message):
        design_from_dict(raw, CATALOG)


def test_set_out_of_service_undoes_exactly():
    design = fabric()
    before = design.snapshot()
    undo = [design.apply(SetOutOfService(path, 2, 1, link)) for path, link in
            (("spine", ""), ("su", ""), ("su/leaf", ""), ("su", "l1"), ("", "l1"))]
    assert not design.content_equal(before)
    for inverse in reversed(undo):
        design.apply(inverse)
    assert design.content_equal(before)
    with pytest.raises(DesignError, match="spine: 10 failed \\+ 7 drained but it has 16 in all"):
        design.apply(SetOutOfService("spine", 10, 7))
    with pytest.raises(DesignError, match="root cannot be failed"):
        design.apply(SetOutOfService("", 1, 0))


# --- the command ----------------------------------------------------------------------------
@pytest.fixture()
def project(tmp_path):
    path = tmp_path / "c.json"
    save_project(fabric(), path)
    return path


def test_evaluate_fail_prints_the_failure_section(project, capsys):
    assert main(["evaluate", str(project), "--fail", "spine:4", "--drain", "su/nodes:1"]) == 0
    f = json.loads(capsys.readouterr().out)["failure"]
    assert f["lost_bisection_fraction"] == pytest.approx(4 / 16) and f["gpus_drained"] == 8
    assert main(["evaluate", str(project), "--fail", "su:1", "--format", "md"]) == 0
    assert "## Failure what-if" in capsys.readouterr().out


@pytest.mark.parametrize("argument, message", [
    ("pod/spine:1", "--fail pod/spine: no component or block at 'pod/spine'"),
    ("spine:17", "--fail 'spine:17': 17 units asked but spine has 16 in all"),
    ("spine:x", "--fail 'spine:x': expected PATH[:N]"),
    ("su#nope", "--fail su#nope: no link 'nope' in block 'su'"),
])
def test_evaluate_fail_refuses_a_bad_path_or_count_in_one_line(project, capsys, argument, message):
    assert main(["evaluate", str(project), "--fail", argument]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


# --- the degraded design, for any count -----------------------------------------------------
BIG = fabric(16384)  # pod x16 / su x4 / 32 servers + 8 leaves; 32 spines a pod; 256 cores
_GROUP_UNITS = {"pod/spine": 512, "pod/su/leaf": 512, "pod/su/nodes": 2048, "core": 256}


def _units_by_original_path(design: Design) -> dict[str, int]:
    import re  # noqa: PLC0415
    flat = flatten(design, CATALOG)
    out: dict[str, int] = {}
    for path, units in zip(flat.paths, flat.multiplicity.tolist()):
        key = re.sub(r"\.degraded(-\d+)?", "", path)
        out[key] = out.get(key, 0) + units
    return out


@given(st.sampled_from(sorted(_GROUP_UNITS)), st.data())
@settings(max_examples=25, deadline=None)
def test_exactly_n_units_leave_whatever_n_and_the_drawing_stays_small(path, data):
    n = data.draw(st.integers(0, _GROUP_UNITS[path]))
    degraded = degraded_design(with_out_of_service(BIG, [f"{path}:{n}"]))
    units = _units_by_original_path(degraded)
    assert units.get(path, 0) == _GROUP_UNITS[path] - n
    assert units["pod/su/nodes"] + (n if path == "pod/su/nodes" else 0) == 2048
    # at most three runs per repeated level (whole, partial, intact): not 16 pods of 4 SUs
    assert len(flatten(degraded, CATALOG).paths) <= 3 * 3 * len(flatten(BIG, CATALOG).paths)


@given(st.sampled_from(["pod", "pod/su"]), st.data())
@settings(max_examples=12, deadline=None)
def test_n_instances_of_a_repeated_block_take_their_gpus(path, data):
    instances = 16 if path == "pod" else 64
    n = data.draw(st.integers(0, instances))
    f = failed(BIG, f"{path}:{n}") if n else None
    if f is not None:
        assert f["gpus_failed"] == n * 16384 // instances
        assert f["gpus_usable"] == 16384 - n * 16384 // instances


def test_warnings_name_the_designs_own_components():
    ev = evaluate(with_out_of_service(fabric(), ["su/leaf:8"]))  # the first SU's servers are cut off
    paths = {path for w in ev.warnings for path in w.components}
    assert paths and not any(".degraded" in path for path in paths)
    assert "su/nodes" in paths


def test_failed_hardware_is_still_paid_for_and_the_run_is_the_degraded_one():
    design = fabric()
    design.workload = load_preset("llama3-70b")
    intact = evaluation_to_json(evaluate(design))["cost"]
    what_if = evaluation_to_json(evaluate(with_out_of_service(design, ["su:1"])))
    cost = what_if["cost"]
    assert cost["capex_usd"] == intact["capex_usd"] and cost["tco_usd_per_year"] == intact["tco_usd_per_year"]
    assert what_if["failure"]["cost_basis"].startswith("the intact design's hardware")
    f = what_if["failure"]  # 768 GPUs for longer, at the intact design's $/GPU-hour
    assert cost["training_run_usd"] == pytest.approx(
        intact["usd_per_gpu_hour"] * f["job_gpus"] * f["training_days"] * 24)


def test_a_count_below_the_units_out_of_service_is_refused_and_changes_nothing():
    from core.operations import SetProperty  # noqa: PLC0415
    design = with_out_of_service(fabric(), ["spine:4", "su/leaf:20", "#l1:100"])
    before = design.snapshot()
    for path, link, count, message in (("spine", "", 3, "spine: 4 failed"),
                                       ("su", "", 2, "su/leaf: 20 failed"),
                                       ("", "l1", 99, "#l1: 100 failed")):
        with pytest.raises(DesignError, match=f"^{message} .*restore them first"):
            design.apply(SetProperty(path, "count", count, link))
        assert design.content_equal(before)
    design.apply(SetProperty("spine", "count", 5))  # still at least 4
    assert design.node("spine").count == 5


@pytest.mark.parametrize("planes", [2, 4])
def test_a_failed_plane_of_a_generated_multi_plane_fabric_loses_one_nth(planes):
    # DGX B300 with ConnectX-8 run as 4 x 200G (or 2 x 400G) on Tomahawk 6 planes: every NIC
    # has a port on every plane, so a whole plane down costs exactly 1/N of the scale-out
    # bandwidth and of the bisection and no GPU; while two or more planes are left, a switch
    # failure still only degrades (failover), but on the last plane it interrupts the job
    design = generate_fat_tree(FatTreeOptions(4096, "DGX-B300", "TH6", planes=planes), CATALOG)
    intact = evaluation_to_json(evaluate(design))
    degraded = evaluation_to_json(evaluate(with_out_of_service(design, ["plane:1"])))
    f = degraded["failure"]
    assert f["lost_scale_out_fraction"] == pytest.approx(1 / planes)
    assert f["lost_bisection_fraction"] == pytest.approx(1 / planes)
    assert f["gpus_lost"] == 0
    assert degraded["bandwidth"]["planes"] == planes - 1
    if planes > 2:
        assert degraded["reliability"]["interruptions_per_day"] == pytest.approx(
            intact["reliability"]["interruptions_per_day"])
    else:
        assert degraded["reliability"]["interruptions_per_day"] > \
            intact["reliability"]["interruptions_per_day"]
    # one spine of one plane: the plane stays (the degraded run and the intact runs are
    # still N planes), and the job keeps running on the others' bandwidth
    one_spine = evaluation_to_json(evaluate(with_out_of_service(design, ["plane/spine:1"])))
    assert one_spine["bandwidth"]["planes"] == planes
    assert one_spine["reliability"]["interruptions_per_day"] == pytest.approx(
        intact["reliability"]["interruptions_per_day"])


def test_a_degraded_block_keeps_its_cooling():
    # the runs a failure splits a block into are cooled like the block: immersion racks stay
    # immersion (PUE 1.05), and what is left never draws more facility power than the whole
    design = fabric()
    design.root.children["su"].cooling = "immersion"
    intact = evaluation_to_json(evaluate(design))
    degraded = evaluation_to_json(evaluate(with_out_of_service(design, ["su:1"])))
    assert set(degraded["power"]["cooling"]) == {"immersion"}
    assert degraded["power"]["pue"] == pytest.approx(intact["power"]["pue"])
    assert degraded["power"]["facility_kw"] < intact["power"]["facility_kw"]
