"""The Muon optimizer (issue 21, Kimi K2): the schema's ``optimizer``, its state memory and the
Newton-Schulz iterations it adds to the optimizer step."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.compute import Hardware
from core.analysis.memory import memory_for
from core.analysis.muon import NS_STEPS, muon_step_s, newton_schulz_flops
from core.assumptions.performance import PerformanceAssumptions
from core.catalog import default_catalog
from core.errors import WorkloadError
from core.precision_recipes import RECIPES, muon_optimizer_bytes
from core.workload import load_preset, with_parallelism, workload_from_dict, workload_to_dict

CATALOG = default_catalog()


def _raw(**changes):
    raw = workload_to_dict(load_preset("deepseek-v3"))
    raw.update(changes)
    return raw


def test_an_adamw_workload_keeps_its_json_and_muon_round_trips():
    raw = workload_to_dict(load_preset("deepseek-v3"))
    assert "optimizer" not in raw  # files written before the field read and write as they were
    muon = workload_from_dict(_raw(optimizer="muon"))
    assert muon.optimizer == "muon"
    assert workload_from_dict(json.loads(json.dumps(workload_to_dict(muon)))) == muon


def test_an_unknown_optimizer_is_refused_where_it_is_written():
    with pytest.raises(WorkloadError, match=r"^workload\.optimizer: 'sgd' is not one of adamw, muon$"):
        workload_from_dict(_raw(optimizer="sgd"))


@pytest.mark.parametrize("precision, ratio", [("bf16", 8 / 12), ("fp8-block", 6 / 8)])
def test_muon_keeps_one_moment_of_the_weight_matrices(precision, ratio):
    """A middle pipeline stage holds no embedding: its optimizer state is master + one moment
    per parameter instead of master + two (FP32 moments: 8 of 12 bytes; DeepSeek-V3's BF16
    moments: 6 of 8)."""
    wl = load_preset("deepseek-v3")
    a = PerformanceAssumptions()
    adam, muon = (memory_for(wl.model, wl.parallelism, 85.5, a, precision=precision,
                             optimizer=o) for o in ("adamw", "muon"))
    assert muon_optimizer_bytes(RECIPES[precision]) / RECIPES[precision].optimizer_bytes == \
        pytest.approx(ratio)
    assert adam.stage == muon.stage == "middle"
    assert muon.optimizer_gb == pytest.approx(adam.optimizer_gb * ratio)
    assert muon.weights_gb == adam.weights_gb and muon.activations_gb == adam.activations_gb


@settings(max_examples=50, deadline=None)
@given(rows=st.integers(1, 20000), cols=st.integers(1, 20000))
def test_newton_schulz_flops_are_symmetric_and_cubic_in_the_short_side(rows, cols):
    m, n = min(rows, cols), max(rows, cols)
    flops = newton_schulz_flops(rows, cols)
    assert flops == newton_schulz_flops(cols, rows)
    # X X^T and B X: 2 m^2 n each; A A: 2 m^3; five iterations (Jordan et al. 2024)
    assert flops == pytest.approx(NS_STEPS * (4 * m * m * n + 2 * m ** 3))


def test_the_iterations_run_no_faster_than_the_bf16_peak_and_are_shared_by_replicas():
    """Kimi K2's expert matrices (2048 x 7168) on one GB300: the Newton-Schulz time is at least
    the FLOPs at the BF16 peak; with a distributed optimizer the replicas of a matrix share it."""
    wl = workload_from_dict({**_raw(), "optimizer": "muon", "model": {
        **workload_to_dict(load_preset("deepseek-v3"))["model"], "mtp_depth": 0}})
    gb300 = CATALOG.get("GB300")
    hw = Hardware(gb300, "bf16", gb300.peak_tflops("bf16"), PerformanceAssumptions())
    par = with_parallelism(wl, tp=1, pp=4, dp=64, ep=64, virtual_stages=1,
                           global_batch=4096).parallelism
    alone = muon_step_s(wl.model, par, False, 15, hw, 1, 1)
    experts_flops = 15 * (256 / 64) * 3 * newton_schulz_flops(2048, 7168)
    assert alone >= experts_flops / (gb300.peak_tflops("bf16") * 1e12)
    shared = muon_step_s(wl.model, par, False, 15, hw, 64, 1)
    assert shared < alone  # the dense matrices split over 64 replicas, the experts over 1
    assert muon_step_s(wl.model, par, False, 15, hw, 64, 4) < shared


def test_the_bottleneck_names_muons_iterations_in_the_optimizer_step():
    from core.analysis.bottleneck import explain_bottleneck
    from core.analysis.performance import analyze_performance
    from core.evaluate import evaluate
    from core.generators import FatTreeOptions, generate_fat_tree
    fabric = evaluate(generate_fat_tree(FatTreeOptions(2048, "HGX-H800", "QM9700"), CATALOG),
                      CATALOG).topology.fabric
    wl = load_preset("kimi-k2")
    assert wl.optimizer == "muon"
    result = explain_bottleneck(fabric, wl, PerformanceAssumptions(),
                                analyze_performance(fabric, wl))
    (step,) = [x for x in result.limiters if x.key == "optimizer"]
    assert "Newton-Schulz" in step.text


def test_the_report_says_which_recipe_and_optimizer_the_run_is_computed_with():
    from core.evaluate import evaluate
    from core.generators import FatTreeOptions, generate_fat_tree
    from core.report import render_report
    design = generate_fat_tree(FatTreeOptions(2048, "HGX-H800", "QM9700"), CATALOG)
    design.workload = load_preset("kimi-k2")
    text = render_report(evaluate(design, CATALOG), "md")
    # the H800's dense BF16 peak (catalog: 989.4 TF/s, as the H100 SXM5 die)
    assert "| Precision | bf16 GEMMs, dense peak 989 TF/s per GPU; Muon optimizer" in text
