"""A job that cannot run on the design gets no performance numbers, says why, and everything
downstream of its run (bottleneck, run energy) is absent too; a job that runs keeps them all."""

import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.catalog import default_catalog
from core.evaluate import evaluate, evaluation_to_json
from core.generators import FatTreeOptions, generate_fat_tree
from core.model import Block, Design, Link, Node
from core.report import render_report
from core.workload import ModelSpec, Workload, load_preset, with_parallelism
from designer.cli import main

RUN_NUMBERS = ("mfu", "hfu", "tflops_per_gpu", "step_time_s", "tokens_per_s", "training_days",
               "breakdown_s")
RUN_ENERGY = ("energy_mwh_it", "energy_mwh_facility", "energy_cost_usd", "co2_t", "gpu_hours")


def fat_tree(gpus: int) -> Design:
    return generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700"), default_catalog())


def two_pods_without_core() -> Design:
    """Two 512-GPU pods (leaf + spine each) drawn side by side, no switch above them."""
    pod = fat_tree(512).root
    a, b = copy.deepcopy(pod), copy.deepcopy(pod)
    a.id, b.id = "pod-a", "pod-b"
    return Design("two pods", Block("root", children={"pod-a": a, "pod-b": b}))


def one_server() -> Design:
    return Design("one DGX", Block("root", children={"dgx": Node("dgx", "DGX-H100")}))


def zero_speed_fabric() -> Design:
    root = Block("root", children={"servers": Node("servers", "DGX-H100", 4),
                                   "leaf": Node("leaf", "QM9700", 1)})
    link = Link("a", "servers", "leaf", count=32)
    # Neither a file nor the model accepts a 0 Gb/s link (links are frozen and checked); a
    # script that forces one past the checks still gets a result that says the step cannot run.
    object.__setattr__(link, "speed_gbit_s", 0.0)
    root.links.append(link)
    return Design("no bandwidth", root)


def switches_only() -> Design:
    return Design("no GPUs", Block("root", children={"leaf": Node("leaf", "QM9700", 2)}))


HUGE = ModelSpec(layers=8, hidden=65536, ffn_hidden=262144, heads=64, seq_len=4096)

# (case, design, workload, the reason's code, does the layout fit in memory)
CASES = [
    ("more GPUs than the design", lambda: fat_tree(1024), lambda: load_preset("llama3-405b"),
     "PARALLELISM_EXCEEDS_GPUS", True),
    ("memory", lambda: fat_tree(1024),
     lambda: with_parallelism(load_preset("gpt3-175b"), tp=8, pp=1, dp=128, virtual_stages=1),
     "DOES_NOT_FIT_MEMORY", False),
    ("no layout fits (auto)", one_server, lambda: Workload("huge", HUGE, "auto"),
     "NO_CONFIGURATION_FITS", False),
    ("level without bandwidth", zero_speed_fabric,
     lambda: with_parallelism(load_preset("llama3-70b"), tp=8, pp=4, dp=1, global_batch=32),
     "NO_NETWORK_BANDWIDTH", True),
    ("partitioned fabric", two_pods_without_core,
     lambda: with_parallelism(load_preset("llama3-70b"), dp=32), "JOB_NOT_CONNECTED", True),
    ("no GPUs", switches_only, lambda: load_preset("llama3-70b"), "NO_GPUS", None),
]


@pytest.mark.parametrize("name, design, workload, code, fits", CASES, ids=[c[0] for c in CASES])
def test_evaluation_json_has_no_run_numbers_and_says_why(name, design, workload, code, fits):
    d = design()
    d.workload = workload()
    out = json.loads(json.dumps(evaluation_to_json(evaluate(d, default_catalog()))))
    perf = out["performance"]
    assert all(perf[key] is None for key in RUN_NUMBERS), perf
    assert perf["runs"] is False
    assert [r["code"] for r in perf["cannot_run"]] == [code]
    assert perf["cannot_run"][0]["severity"] == "error" and perf["cannot_run"][0]["message"]
    # the reason is a warning too, once, and an error: errors come first
    warnings = [w for w in out["warnings"] if w["code"] == code]
    assert len(warnings) == 1 and warnings[0]["severity"] == "error"
    assert out["warnings"][0]["severity"] == "error"
    assert out["bottleneck"] is None
    assert all(out["power"][key] is None for key in RUN_ENERGY)
    if fits is None:  # no GPUs: nothing of a layout to show
        return
    # what is still real: memory per GPU and why, the job's GPUs and layout
    assert perf["fits_memory"] is fits and perf["memory_per_gpu_gb"] > 0
    assert perf["memory_gb"]["total_gb"] == perf["memory_per_gpu_gb"]
    assert perf["job_gpus"] == perf["parallelism"]["tp"] * perf["parallelism"]["pp"] * \
        perf["parallelism"]["dp"] * perf["parallelism"]["cp"]


@pytest.mark.parametrize("fmt", ["md", "html", "csv"])
def test_reports_say_does_not_fit_with_the_reason_and_show_no_mfu(fmt):
    design = fat_tree(1024)
    design.workload = load_preset("llama3-405b")  # Meta's 16,384-GPU layout
    text = render_report(evaluate(design, default_catalog()), fmt)
    assert "does not fit: the parallelism needs 16,384 GPUs" in text
    assert "MFU" not in text and "Step time" not in text and "Training time" not in text
    assert "Training-run energy" in text and "does not fit (see Performance)" in text
    assert "Memory breakdown" in text  # why it would or would not fit in memory


def test_cli_evaluate_of_a_job_larger_than_the_design(tmp_path, capsys):
    path = tmp_path / "p.json"
    assert main(["generate", "fat-tree", "--gpus", "1024", "--server", "DGX-H100", "--switch",
                 "QM9700", "-o", str(path)]) == 0
    capsys.readouterr()
    assert main(["evaluate", str(path), "--workload", "llama3-405b", "--keep-preset-layout"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["performance"]["mfu"] is None and out["performance"]["training_days"] is None
    assert out["performance"]["cannot_run"][0]["code"] == "PARALLELISM_EXCEEDS_GPUS"


def test_a_job_that_runs_keeps_every_number():
    design = fat_tree(1024)
    design.workload = load_preset("llama3-70b")
    ev = evaluate(design, default_catalog())
    out = evaluation_to_json(ev)
    perf = out["performance"]
    assert perf["runs"] is True and perf["cannot_run"] == [] and ev.cannot_run == ()
    assert all(perf[key] is not None for key in RUN_NUMBERS)
    assert 0 < perf["mfu"] < 1 and sum(perf["breakdown_s"].values()) == pytest.approx(perf["step_time_s"])
    assert out["bottleneck"] is not None
    assert all(out["power"][key] > 0 for key in RUN_ENERGY)
    assert out["power"]["gpu_hours"] == pytest.approx(1024 * perf["training_days"] * 24)
    # The run raises no error; the cost analysis' own (a catalog without prices) is not the run's.
    assert not [w for w in out["warnings"]
                if w["severity"] == "error" and w["code"] != "UNPRICED_COMPONENTS"]


def test_without_a_workload_nothing_runs_and_nothing_is_blamed():
    out = evaluation_to_json(evaluate(fat_tree(64), default_catalog()))
    assert out["performance"]["runs"] is None and out["performance"]["cannot_run"] == []
    assert all(out["power"][key] is None for key in RUN_ENERGY)  # no run: no energy, not 0
    assert [w["code"] for w in out["warnings"] if w["code"] == "NO_WORKLOAD"] == ["NO_WORKLOAD"]
    assert next(w for w in out["warnings"] if w["code"] == "NO_WORKLOAD")["severity"] == "info"


def test_a_partitioned_fabric_names_its_parts_and_what_joins_them():
    design = two_pods_without_core()
    ev = evaluate(design, default_catalog())
    (split,) = [w for w in ev.warnings if w.code == "FABRIC_PARTITIONED"]
    assert split.severity == "warning"
    assert "2 parts" in split.message
    assert "pod-a: 512 GPUs" in split.message and "pod-b: 512 GPUs" in split.message
    assert "connect pod-a/spine and pod-b/spine to a common core tier" in split.message
    assert split.components == ("pod-a/spine", "pod-b/spine")  # a click selects the join points
    # no latency between GPUs that have no path to each other, rather than one over the rest
    latency = evaluation_to_json(ev)["latency"]
    assert latency["gpu_to_gpu_max_us"] is None and latency["gpu_to_gpu_mean_us"] is None
    assert "no path between some GPUs" in render_report(ev, "md")
    # a job inside one part runs; one across both cannot
    design.workload = with_parallelism(load_preset("llama3-70b"), dp=16)  # 512 GPUs
    assert evaluate(design, default_catalog()).performance.runs
    design.workload = with_parallelism(load_preset("llama3-70b"), dp=32)  # 1,024 GPUs
    assert [d.code for d in evaluate(design, default_catalog()).cannot_run] == ["JOB_NOT_CONNECTED"]


def test_copies_of_one_block_without_a_tier_above_are_named_by_copy():
    pod = fat_tree(512).root
    pod.id, pod.count = "pod", 3
    ev = evaluate(Design("three pods", Block("root", children={"pod": pod})), default_catalog())
    (split,) = [w for w in ev.warnings if w.code == "FABRIC_PARTITIONED"]
    assert "3 parts" in split.message and "pod (copy 2 of 3): 512 GPUs" in split.message
    assert "connect pod/spine of every part to a common core tier" in split.message


def test_gpus_without_a_scale_out_fabric_say_what_would_join_them():
    racks = Design("racks", Block("root", children={"nvl72": Node("nvl72", "GB200-NVL72", 4)}))
    racks.workload = with_parallelism(load_preset("llama3-70b"), tp=8, pp=4, dp=4, global_batch=64)
    ev = evaluate(racks, default_catalog())
    (none,) = [w for w in ev.warnings if w.code == "NO_SCALE_OUT"]
    assert "the 288 GPUs are in 4 parts of up to 72" in none.message
    assert "leaf tier to join them" in none.message and none.components == ("nvl72",)
    assert [d.code for d in ev.cannot_run] == ["JOB_NOT_CONNECTED"]  # 128 GPUs > one rack


@given(st.lists(st.integers(1, 4), min_size=1, max_size=7))
def test_any_set_of_unjoined_leaves_is_explained_part_by_part(servers_per_part):
    root = Block("root")
    for i, n in enumerate(servers_per_part):
        root.children[f"b{i}"] = Block(f"b{i}", children={
            "servers": Node("servers", "DGX-H100", n), "leaf": Node("leaf", "QM9700", 1)},
            links=[Link("up", "servers", "leaf", count=8 * n)])
    ev = evaluate(Design("parts", root), default_catalog())
    split = [w for w in ev.warnings if w.code == "FABRIC_PARTITIONED"]
    parts = len(servers_per_part)
    if parts == 1:
        assert not split
        return
    (split,) = split
    assert f"in {parts} parts" in split.message
    assert split.components == tuple(f"b{i}/leaf" for i in range(parts))
    sizes = sorted(((8 * n, i) for i, n in enumerate(servers_per_part)), key=lambda p: -p[0])
    for gpus, i in sizes[:4]:
        assert f"b{i}: {gpus:,} GPUs" in split.message
    assert (f"and {parts - 4} more);" in split.message) == (parts > 4)
    assert "common spine tier" in split.message


def test_a_block_that_falls_apart_numbers_its_parts_and_ignores_unlinked_switches():
    # A mistyped leaf count (bench/fuzz.py found one: 8 -> 1,039,634): the servers' cables spread
    # over so many leaves that every server is a part of its own, and the leaves no cable
    # reaches are parts without GPUs that the explanation leaves out.
    rack = Block("rack", count=2, children={
        "servers": Node("servers", "DGX-H100", 4), "leaf": Node("leaf", "QM9700", 100_000)},
        links=[Link("up", "servers", "leaf", count=32)])
    ev = evaluate(Design("typo", Block("root", children={"rack": rack})), default_catalog())
    (split,) = [w for w in ev.warnings if w.code == "FABRIC_PARTITIONED"]
    assert "in 8 parts" in split.message  # 8 servers, not 200,000 leaves
    assert "rack (copy 1 of 2) (part 1): 8 GPUs, rack (copy 1 of 2) (part 2): 8 GPUs" in split.message
    assert "and 4 more);" in split.message


def _memory_reason(design, workload) -> str:
    design.workload = workload
    reasons = evaluate(design, default_catalog()).performance.cannot_run
    (reason,) = [r for r in reasons if r.code == "DOES_NOT_FIT_MEMORY"]
    return reason.message


def test_a_layout_over_memory_names_the_lightest_recompute_that_fits():
    """Meta's Llama 3 405B 8K layout without activation checkpointing is over an H100 by 0.3%
    (docs/validation.md, L3-8k); the reason says which recompute makes it fit and how much it
    then needs, the figure the layout with that recompute evaluates to."""
    layout = dict(tp=8, pp=16, dp=64, virtual_stages=8, zero_stage=2)
    workload = with_parallelism(load_preset("llama3-405b"), recompute="none", **layout)
    message = _memory_reason(fat_tree(8192), workload)
    # with flash attention "selective" saves nothing: the first that fits is the next one
    assert "with recompute 'norms-up-proj' it needs" in message and "and fits" in message
    needs = float(message.split("with recompute 'norms-up-proj' it needs ")[1].split(" GB")[0])
    design = fat_tree(8192)
    design.workload = with_parallelism(workload, recompute="norms-up-proj")
    perf = evaluate(design, default_catalog()).performance
    assert perf.fits_memory and perf.memory_per_gpu_gb == pytest.approx(needs, abs=0.05)
    # the evaluation JSON gives every mode's figure, the same number included
    by_mode = json.loads(json.dumps(evaluation_to_json(evaluate(design, default_catalog()))))[
        "performance"]["memory_by_recompute_gb"]
    assert list(by_mode) == ["none", "selective", "norms-up-proj", "moe-experts", "full"]
    assert by_mode["norms-up-proj"] == pytest.approx(perf.memory_per_gpu_gb)
    assert by_mode["full"] < by_mode["norms-up-proj"] < by_mode["none"] == by_mode["selective"]


def test_a_layout_no_recompute_rescues_says_so():
    workload = with_parallelism(load_preset("gpt3-175b"), tp=8, pp=1, dp=128, virtual_stages=1,
                                recompute="selective")
    message = _memory_reason(fat_tree(1024), workload)
    assert "recompute alone does not make it fit" in message and "with 'full')" in message
