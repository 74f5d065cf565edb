"""Comparing designs: deltas against the first design, better/worse marks, "n/a" for missing
values, the one-line summaries, and the ``compare`` subcommand's outputs and errors."""

import copy
import csv
import io
import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.compare import (BETTER, DIFFERENT, EQUAL, HIGHER, LOWER, NEITHER, NOT_AVAILABLE, WORSE,
                          compare_evaluations, comparison_to_json, delta)
from core.evaluate import evaluate, evaluation_to_json
from core.generators import FatTreeOptions, generate_fat_tree
from core.preset_fit import fit_to_design
from core.project import save_project
from core.report.comparison import render_comparison
from core.workload import load_preset
from designer.cli import main

COST = {"hardware_capex_usd": 3.1e8, "facility_capex_usd": 0.9e8, "capex_usd": 4.0e8,
        "capex_by_kind_usd": {"server": 2.9e8}, "opex_usd_per_year": 2.0e7, "tco_usd_per_year": 1.0e8,
        "usd_per_gpu_hour": 2.1, "training_run_usd": 4.5e7, "usd_per_million_tokens_trained": 3.0}


@pytest.fixture(scope="module")
def pair(tmp_path_factory, catalog):
    """The same 2,048 H100 on SN5600 switches: full bisection, and islands of 512 joined 4:1,
    both running Llama 3 70B on every GPU (TP 8, PP 4, DP 64)."""
    folder = tmp_path_factory.mktemp("compare")
    paths = []
    for name, options in (("full", FatTreeOptions(2048, "DGX-H100", "SN5600")),
                          ("islands", FatTreeOptions(2048, "DGX-H100", "SN5600", island_gpus=512,
                                                     island_oversubscription=4.0))):
        design = generate_fat_tree(options, catalog)
        design.workload, _ = fit_to_design(load_preset("llama3-70b"), 2048, "llama3-70b")
        paths.append(folder / f"{name}.json")
        save_project(design, paths[-1])
    return paths


@pytest.fixture(scope="module")
def evaluations(pair):
    from core.project import load_project

    return [evaluation_to_json(evaluate(load_project(p))) for p in pair]


def _deltas(comparison_json, design=0):
    return comparison_json["deltas"][design]["metrics"]


def test_a_design_compared_with_itself_is_equal_everywhere(evaluations):
    comparison = compare_evaluations([evaluations[0], copy.deepcopy(evaluations[0])], ["A", "B"])
    for path, d in _deltas(comparison_to_json(comparison)).items():
        if d["better"] == NOT_AVAILABLE:  # null in both (no checkpoint storage here)
            assert d["absolute"] is None and d["relative"] is None, path
        else:
            assert (d["absolute"], d["relative"], d["better"]) == (0, 0, EQUAL), path
    assert comparison.summary[1] == "B: the same as A on every headline metric."


def test_islands_against_full_bisection_lose_bisection_and_keep_the_gpus(evaluations):
    comparison = compare_evaluations(evaluations, ["full", "islands"])
    deltas = _deltas(comparison_to_json(comparison))
    bisection = deltas["bandwidth.bisection_tbit_s"]
    assert bisection["absolute"] < 0 and bisection["better"] == WORSE
    assert bisection["relative"] == pytest.approx(-0.75)  # 4:1 above the islands
    assert deltas["latency.max_switch_hops"]["better"] == WORSE  # a third tier to cross
    assert deltas["bandwidth.alltoall_per_gpu_gbyte_s"]["better"] == WORSE
    assert deltas["counts.gpus"]["better"] == EQUAL
    # Counts have no better side: more switches is "different", not better or worse.
    assert deltas["counts.switches"]["absolute"] > 0 and deltas["counts.switches"]["better"] == DIFFERENT
    assert comparison.summary[1].startswith("islands: ")
    assert "75% less bisection bandwidth" in comparison.summary[1]


def test_swapping_the_baseline_flips_every_mark(evaluations):
    forward = _deltas(comparison_to_json(compare_evaluations(evaluations, ["a", "b"])))
    backward = _deltas(comparison_to_json(compare_evaluations(evaluations[::-1], ["b", "a"])))
    flip = {BETTER: WORSE, WORSE: BETTER, EQUAL: EQUAL, DIFFERENT: DIFFERENT, NOT_AVAILABLE: NOT_AVAILABLE}
    assert {p: flip[d["better"]] for p, d in forward.items()} == {p: d["better"] for p, d in backward.items()}


def test_a_job_that_cannot_run_gives_n_a_not_a_number(evaluations):
    cannot_run = copy.deepcopy(evaluations[1])
    for key in ("mfu", "step_time_s", "training_days", "tokens_per_s", "tflops_per_gpu"):
        cannot_run["performance"][key] = None
    comparison = compare_evaluations([evaluations[0], cannot_run], ["A", "B"])
    mfu = _deltas(comparison_to_json(comparison))["performance.mfu"]
    assert mfu == {"absolute": None, "relative": None, "better": NOT_AVAILABLE}
    assert "no value to compare for" in comparison.summary[1] and "MFU" in comparison.summary[1]
    markdown_row = next(line for line in render_comparison(comparison, "md").splitlines()
                        if line.startswith("| MFU |"))
    assert markdown_row.endswith("| n/a |")
    csv_row = next(r for r in csv.DictReader(io.StringIO(render_comparison(comparison, "csv")))
                   if r["key"] == "mfu")
    assert (csv_row["B"], csv_row["B delta"], csv_row["B better"]) == ("", "", NOT_AVAILABLE)


def test_cost_metrics_are_compared_when_the_cost_section_is_present(evaluations):
    a, b = (copy.deepcopy(e) for e in evaluations)
    for e in (a, b):  # as in an evaluation saved before the cost analysis existed
        del e["cost"]
    without = compare_evaluations([a, b], ["A", "B"])
    assert not any(m.section == "cost" for m in without.metrics)
    a["cost"], b["cost"] = dict(COST), {**COST, "capex_usd": 5.0e8, "usd_per_gpu_hour": None}
    deltas = _deltas(comparison_to_json(compare_evaluations([a, b], ["A", "B"])))
    assert deltas["cost.capex_usd"] == {"absolute": 1.0e8, "relative": 0.25, "better": WORSE}
    assert deltas["cost.usd_per_gpu_hour"]["better"] == NOT_AVAILABLE
    assert deltas["cost.training_run_usd"]["better"] == EQUAL
    # A section only one design has (an older evaluation file) is n/a, not zero.
    del b["cost"]
    deltas = _deltas(comparison_to_json(compare_evaluations([a, b], ["A", "B"])))
    assert deltas["cost.capex_usd"]["better"] == NOT_AVAILABLE


def test_the_summary_names_wins_and_losses_with_their_sizes(evaluations):
    a, b = (copy.deepcopy(evaluations[0]) for _ in range(2))
    b["bandwidth"]["bisection_tbit_s"] *= 1.23
    b["performance"]["training_days"] *= 0.91
    b["power"]["it_kw"] *= 1.14
    b["power"]["facility_kw"] *= 1.14
    sentence = compare_evaluations([a, b], ["A", "B"]).summary[1]
    assert sentence == ("B: 23% more bisection bandwidth and 9.0% faster training, "
                        "at 14% more facility power than A.")


finite = st.one_of(st.just(0), st.just(0.0), st.integers(-10**9, 10**9),
                   st.floats(-1e12, 1e12, allow_nan=False, allow_subnormal=False))


@given(base=st.one_of(st.none(), finite), value=st.one_of(st.none(), finite),
       direction=st.sampled_from([HIGHER, LOWER, NEITHER]))
def test_deltas_are_finite_and_agree_in_sign(base, value, direction):
    d = delta(base, value, direction)
    if base is None or value is None:
        assert (d.absolute, d.relative, d.better) == (None, None, NOT_AVAILABLE)
        return
    assert math.isfinite(d.absolute) and d.absolute == value - base
    assert d.relative is None or math.isfinite(d.relative)
    assert d.relative is not None or (base == 0 and value != 0)  # no percentage of nothing
    if d.better == EQUAL:
        assert math.isclose(value, base, rel_tol=1e-9)
        return
    assert d.relative is None or math.copysign(1, d.relative) == math.copysign(1, d.absolute)
    if direction == NEITHER:
        assert d.better == DIFFERENT
    else:
        assert (d.better == BETTER) == ((d.absolute > 0) == (direction == HIGHER))


def test_cli_json_holds_every_design_in_order(pair, capsys):
    assert main(["compare", *map(str, pair), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "cluster-designer.comparison/1"
    assert data["names"] == ["full", "islands"] and data["paths"] == [str(p) for p in pair]
    assert [d["format"] for d in data["designs"]] == ["cluster-designer.evaluation/1"] * 2
    assert [d["bandwidth"]["bisection_tbit_s"] for d in data["designs"]] == \
        [v for v in next(m for m in data["metrics"] if m["path"] == "bandwidth.bisection_tbit_s")["values"]]
    assert len(data["deltas"]) == 1 and len(data["summary"]) == 2


def test_cli_csv_md_and_html(pair, tmp_path, capsys):
    out = tmp_path / "c.csv"
    assert main(["compare", *map(str, pair), "--format", "csv", "-o", str(out)]) == 0
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert {"section", "key", "metric", "unit", "direction", "full", "islands", "islands better"} <= set(rows[0])
    assert next(r for r in rows if r["key"] == "bisection_tbit_s")["islands better"] == WORSE
    assert main(["compare", *map(str, pair), "--format", "md"]) == 0
    markdown = capsys.readouterr().out
    assert "| Metric | Better | full | islands |" in markdown and "- islands: " in markdown
    assert main(["compare", *map(str, pair), "--format", "html"]) == 0
    assert "<th>islands</th>" in capsys.readouterr().out


def test_cli_fits_a_preset_to_each_design(pair, capsys):
    assert main(["compare", *map(str, pair), "--workload", "llama3-405b", "--format", "json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert [d["workload"]["name"] for d in data["designs"]] == ["Llama 3 405B"] * 2
    assert all(d["performance"]["job_gpus"] == 2048 for d in data["designs"])
    assert all(line.startswith(f"cluster-designer: {p}: Preset") for line, p in
               zip(captured.err.splitlines(), pair))


@pytest.mark.parametrize("problem", ["missing", "invalid", "one"])
def test_cli_bad_input_is_one_line_naming_the_file(pair, tmp_path, capsys, problem):
    bad = tmp_path / "bad.json"
    if problem == "invalid":
        bad.write_text("{ not json")
    out = tmp_path / "out.json"
    projects = [str(pair[0])] if problem == "one" else [str(pair[0]), str(bad)]
    assert main(["compare", *projects, "--format", "json", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert (str(bad) in err) if problem != "one" else ("two or more" in err)
    assert not out.exists()


def test_the_summary_says_when_the_designs_run_different_workloads(evaluations):
    without = copy.deepcopy(evaluations[0])
    without["workload"] = None
    same = compare_evaluations([evaluations[0], copy.deepcopy(evaluations[0])], ["A", "B"]).summary[1]
    different = compare_evaluations([evaluations[0], without], ["A", "B"]).summary[1]
    assert "runs" not in same
    assert different.endswith("; it runs no workload, A runs Llama 3 70B.")


def test_cli_compares_a_saved_evaluation_with_a_project(pair, tmp_path, capsys):
    saved = tmp_path / "saved.json"
    assert main(["evaluate", str(pair[0]), "-o", str(saved)]) == 0
    assert main(["compare", str(saved), str(pair[0]), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"][1] == f"{pair[0].stem}: the same as saved on every headline metric."
    # A saved evaluation holds its results, not a design to run another workload on.
    assert main(["compare", str(saved), str(pair[0]), "--workload", "llama3-70b"]) == 2
    assert "saved.json: a saved evaluation cannot be re-run with --workload" in capsys.readouterr().err


def test_every_design_after_the_first_is_compared_with_the_first(evaluations):
    full, islands = evaluations
    data = comparison_to_json(compare_evaluations([full, islands, full], ["A", "B", "C"]))
    assert [d["design"] for d in data["deltas"]] == ["B", "C"] and len(data["summary"]) == 3
    assert data["deltas"][0]["metrics"]["bandwidth.bisection_tbit_s"]["better"] == WORSE
    assert {d["better"] for d in data["deltas"][1]["metrics"].values()} <= {EQUAL, NOT_AVAILABLE}


def test_cli_compares_under_one_stack_or_each_project_s_own(pair, tmp_path, capsys):
    # --stack puts every design under one preset; without it, projects saved with different
    # stacks compare under their own (issue 11: "under the same and under different stacks").
    from core.project import load_project
    from core.stacks import apply_stack

    old = tmp_path / "full-conservative.json"
    save_project(apply_stack(load_project(pair[0]), "conservative"), old)
    assert main(["compare", str(pair[0]), str(old), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["performance"]["stack"]["id"] for d in data["designs"]] == ["nemo-2024", "conservative"]
    assert data["deltas"][0]["metrics"]["performance.mfu"]["better"] == WORSE
    assert main(["compare", str(pair[0]), str(old), "--stack", "nemo-2024", "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["performance"]["stack"]["id"] for d in data["designs"]] == ["nemo-2024", "nemo-2024"]
    assert data["deltas"][0]["metrics"]["performance.mfu"]["better"] == EQUAL


SERVED = {"prefill_tokens_per_s_per_gpu": 18000.0, "decode_tokens_per_s_per_gpu": 3000.0,
          "ttft_ms": 300.0, "tpot_ms": 35.0, "tokens_per_s_per_mw": 9.0e5, "meets_slo": True,
          "output_tokens_per_s_per_gpu": 1800.0, "design_output_tokens_per_s": 129600.0,
          "usd_per_million_output_tokens": 0.32}


def test_serving_metrics_compare_with_their_better_side(evaluations):
    a, b = (copy.deepcopy(evaluations[0]) for _ in range(2))
    a["inference"] = dict(SERVED)
    # B serves 25% more per GPU on twice the GPUs, at $0.24 per million output tokens, missing its SLO
    b["inference"] = {**SERVED, "output_tokens_per_s_per_gpu": 2250.0,
                      "design_output_tokens_per_s": 324000.0, "usd_per_million_output_tokens": 0.24,
                      "tpot_ms": 60.0, "meets_slo": False}
    comparison = compare_evaluations([a, b], ["A", "B"])
    deltas = _deltas(comparison_to_json(comparison))
    assert deltas["inference.output_tokens_per_s_per_gpu"] == {"absolute": 450.0, "relative": 0.25,
                                                               "better": BETTER}
    assert deltas["inference.design_output_tokens_per_s"] == {"absolute": 194400.0, "relative": 1.5,
                                                              "better": BETTER}
    cost = deltas["inference.usd_per_million_output_tokens"]
    assert cost["absolute"] == pytest.approx(-0.08) and cost["relative"] == pytest.approx(-0.25)
    assert cost["better"] == BETTER
    assert deltas["inference.tpot_ms"]["better"] == WORSE
    # a yes/no has no delta or percentage: the verdict is no compared metric
    assert "inference.meets_slo" not in deltas
    # the two throughputs are one theme, so the sentence names the larger change once
    assert comparison.summary[1] == ("B: 150% more served output of the design and 25% lower cost "
                                     "per output token, at 71% longer time per output token than A.")
    units = {m.path: (m.label, m.unit) for m in comparison.metrics}
    assert units["inference.usd_per_million_output_tokens"] == ("Cost per million output tokens", "USD/Mtoken")
    assert units["inference.output_tokens_per_s_per_gpu"] == ("Served output per GPU", "tokens/s")
    assert units["inference.design_output_tokens_per_s"] == ("Output of the design", "tokens/s")


def test_services_are_compared_on_the_serving_metrics_too(evaluations):
    a, b = (copy.deepcopy(evaluations[0]) for _ in range(2))
    a["services"] = [{"name": "chat", "inference": dict(SERVED)}]
    b["services"] = [{"name": "chat", "inference": {**SERVED, "usd_per_million_output_tokens": 0.4}}]
    deltas = _deltas(comparison_to_json(compare_evaluations([a, b], ["A", "B"])))
    assert deltas["services.chat.usd_per_million_output_tokens"]["better"] == WORSE
    assert deltas["services.chat.usd_per_million_output_tokens"]["relative"] == pytest.approx(0.25)
    assert deltas["services.chat.output_tokens_per_s_per_gpu"]["better"] == EQUAL
    assert "services.chat.meets_slo" not in deltas
