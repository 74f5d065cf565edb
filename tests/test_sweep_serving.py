"""Sweeps of serving workloads: inference presets, files and inline objects (with "auto"), rows
equal to the evaluation of each recipe, the SLO verdict column, the serving Pareto front, mixed
training and serving sweeps, and the spec's one-line errors for bad inference workloads."""

import csv
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from core.compare import METRICS, metric_value
from core.evaluate import evaluate, evaluation_to_json
from core.generators import SupernodeOptions, generate_supernode
from core.inference_workload import InferenceWorkload, inference_workload_from_dict, load_inference_preset
from core.sweep.recipe import design_from_recipe, evaluate_recipe
from core.sweep.results import SLO_COLUMN, read_results, results_csv
from core.sweep.run import run_sweep
from core.sweep.spec import SweepSpecError, load_sweep_spec, sweep_spec_from_dict
from designer.cli import main

ROOT = Path(__file__).resolve().parent.parent
LLAMA = json.loads((ROOT / "resources" / "workloads" / "llama31-70b-serve.json").read_text())
AUTO = {**LLAMA, "name": "Llama auto", "deployment": "auto"}
# A TPOT no deployment reaches (a decode step of a 70B model reads 140 GB of weights from HBM):
# the row keeps its figures and says it misses.
TOO_FAST = {**LLAMA, "name": "Llama 1 ms", "slo": {"ttft_ms": 2000, "tpot_ms": 1}}
SERVING = {"template": "supernode", "options": {"system": ["DGX-H100", "DGX-H200"], "count": [1, 2]},
           "workloads": ["deepseek-r1-serve", AUTO, TOO_FAST]}
SERVING_OBJECTIVES = ["inference.usd_per_million_output_tokens:min", "inference.tpot_ms:min",
                      "power.facility_kw:min"]


@pytest.fixture(scope="module")
def serving():
    spec = sweep_spec_from_dict(SERVING)
    recipes, outcomes = run_sweep(spec, jobs=1)
    return spec, recipes, outcomes


@pytest.fixture(scope="module")
def table(serving, tmp_path_factory):
    spec, recipes, outcomes = serving
    path = tmp_path_factory.mktemp("serving") / "r.csv"
    path.write_text(results_csv(spec, recipes, outcomes))
    return read_results(path)


def _row(recipes, system, count, label):
    return next(i for i, r in enumerate(recipes) if (r["options"]["system"], r["options"]["count"],
                                                    r["workload_label"]) == (system, count, label))


def test_inference_presets_and_objects_are_kinds_of_their_own(serving):
    spec, recipes, _ = serving
    assert [(w.label, w.kind) for w in spec.workloads] == [
        ("deepseek-r1-serve", "inference"), ("Llama auto", "inference"), ("Llama 1 ms", "inference")]
    assert [o.label for o in spec.objectives] == SERVING_OBJECTIVES
    # a preset by name (served as written), an object as its own JSON with "auto" kept
    assert recipes[0]["workload"] == "deepseek-r1-serve"
    assert recipes[1]["workload"]["deployment"] == "auto" and recipes[1]["workload"]["kind"] == "inference"


def test_each_row_is_the_evaluation_of_the_design_built_by_hand(serving, catalog):
    """Not through the recipe: the generator, the preset or the object, evaluated directly."""
    spec, recipes, outcomes = serving
    workloads = {"deepseek-r1-serve": load_inference_preset("deepseek-r1-serve"),
                 "Llama auto": inference_workload_from_dict(AUTO),
                 "Llama 1 ms": inference_workload_from_dict(TOO_FAST)}
    for recipe, outcome in zip(recipes, outcomes):
        options = recipe["options"]
        design = generate_supernode(SupernodeOptions(options["system"], options["count"]), catalog)
        design.workload = workloads[recipe["workload_label"]]
        evaluation = evaluation_to_json(evaluate(design))
        for metric in METRICS:
            assert outcome["metrics"][metric.path] == metric_value(evaluation, metric), metric.path
        assert outcome["meets_slo"] == evaluation["inference"]["meets_slo"]
    assert spec.combinations == len(outcomes) == 12


def test_results_file_rows_rebuild_to_the_same_inference_section(serving, table):
    spec, recipes, outcomes = serving
    for row in range(table.rows):
        design = design_from_recipe(table.recipe(row))
        assert isinstance(design.workload, InferenceWorkload)
        assert design.workload.auto == (recipes[row]["workload_label"] == "Llama auto")
        evaluation = evaluation_to_json(evaluate(design))
        for metric in METRICS:
            value, cell = metric_value(evaluation, metric), table.numbers[metric.path][row]
            assert (math.isnan(cell) if value is None else cell == value), (row, metric.path)
        verdict = evaluation["inference"]["meets_slo"]
        assert table.cells[SLO_COLUMN][row] == ("" if verdict is None else str(verdict).lower())


def test_serving_columns_hold_the_figures_a_user_compares(serving, table):
    spec, recipes, outcomes = serving
    auto = outcomes[_row(recipes, "DGX-H200", 2, "Llama auto")]["metrics"]
    assert auto["inference.output_tokens_per_s_per_gpu"] > 0
    assert auto["inference.usd_per_million_output_tokens"] > 0
    assert auto["inference.tpot_ms"] <= 50 and auto["inference.ttft_ms"] <= 2000  # "auto" meets them
    # a design's output is its GPUs' whole copies of the deployment: 16 GPUs, at most 16 per GPU
    assert 0 < auto["inference.design_output_tokens_per_s"] <= 16 * auto["inference.output_tokens_per_s_per_gpu"] * (1 + 1e-12)
    assert auto["performance.training_days"] is None  # no training on a serving row
    header = list(table.columns)
    for path in ("inference.output_tokens_per_s_per_gpu", "inference.usd_per_million_output_tokens",
                 "inference.design_output_tokens_per_s", SLO_COLUMN):
        assert path in header
    assert header.index(SLO_COLUMN) == header.index("error") - 1


def test_a_model_too_big_for_the_gpus_is_a_row_with_its_reason(serving):
    _, recipes, outcomes = serving
    # DeepSeek-R1's FP8 weights on 8 GPUs (EP 8): ~99 GB per GPU against the H100's 80 GB
    outcome = outcomes[_row(recipes, "DGX-H100", 1, "deepseek-r1-serve")]
    assert outcome["error"].startswith("workload does not run: inference.deployment: ")
    assert "H100" in outcome["error"] and outcome["meets_slo"] is None
    assert outcome["metrics"]["counts.gpus"] == 8 and outcome["metrics"]["inference.tpot_ms"] is None


def test_a_design_that_misses_its_slos_keeps_its_figures_and_is_never_on_the_front(serving, table):
    _, recipes, outcomes = serving
    for count in (1, 2):
        for system in ("DGX-H100", "DGX-H200"):
            row = _row(recipes, system, count, "Llama 1 ms")
            assert outcomes[row]["meets_slo"] is False and outcomes[row]["error"] is None
            assert outcomes[row]["metrics"]["inference.tpot_ms"] > 1
            assert table.misses_slo[row] and not table.pareto[row]
    assert not table.misses_slo[_row(recipes, "DGX-H200", 2, "Llama auto")]


def test_the_front_is_exactly_the_non_dominated_rows_that_serve_as_asked(serving, table):
    spec, _, outcomes = serving
    signs = np.array([1.0 if o.direction == "min" else -1.0 for o in spec.objectives])
    costs = np.array([[o["metrics"].get(obj.metric) if o["metrics"].get(obj.metric) is not None
                       else math.nan for obj in spec.objectives] for o in outcomes]) * signs
    eligible = [o["error"] is None and o["meets_slo"] is not False and not np.isnan(c).any()
                for o, c in zip(outcomes, costs)]
    for i in range(len(outcomes)):
        dominated = any(eligible[j] and np.all(costs[j] <= costs[i]) and np.any(costs[j] < costs[i])
                        for j in range(len(outcomes)))
        assert table.pareto[i] == (eligible[i] and not dominated), i
    assert table.pareto.any()


def test_mixed_training_and_serving_sweep_has_each_kinds_figures_and_fabric_objectives():
    spec = sweep_spec_from_dict({"template": "fat-tree",
                                 "options": {"gpus": 1024, "server": "DGX-H100", "switch": "QM9700"},
                                 "workloads": ["llama3-70b", "llama31-70b-serve"]})
    assert [o.label for o in spec.objectives] == ["cost.capex_usd:min", "power.facility_kw:min"]
    recipes, outcomes = run_sweep(spec, jobs=1)
    training, serving = (o["metrics"] for o in outcomes)
    assert training["performance.training_days"] > 0 and training["inference.tpot_ms"] is None
    assert serving["inference.tpot_ms"] > 0 and serving["performance.training_days"] is None
    assert [o["meets_slo"] for o in outcomes] == [None, True]
    assert training["cost.capex_usd"] == serving["cost.capex_usd"]  # the same fabric
    # both on the front: equal on both objectives, neither dominates
    csv_text = results_csv(spec, recipes, outcomes)
    assert [r["pareto"] for r in csv.DictReader(csv_text.splitlines())] == ["true", "true"]
    assert [r[SLO_COLUMN] for r in csv.DictReader(csv_text.splitlines())] == ["", "true"]


def test_inference_file_in_the_spec_is_embedded_and_kind_chooses_the_defaults(tmp_path):
    (tmp_path / "serve.json").write_text(json.dumps({**AUTO, "name": "From a file"}))
    spec_path = tmp_path / "s.json"
    spec_path.write_text(json.dumps({**SERVING, "options": {"system": "DGX-H200", "count": 1},
                                     "workloads": ["serve.json"]}))
    spec = load_sweep_spec(spec_path)
    (recipe,) = spec.recipes()
    assert recipe["workload_label"] == "serve"
    assert recipe["workload"]["name"] == "From a file" and recipe["workload"]["deployment"] == "auto"
    assert [o.label for o in spec.objectives] == SERVING_OBJECTIVES
    assert design_from_recipe(recipe).workload == replace(inference_workload_from_dict(AUTO),
                                                          name="From a file")


def test_example_serving_spec_sweeps_hardware_for_deepseek_r1():
    spec = load_sweep_spec(ROOT / "resources" / "sweeps" / "serving-deepseek-r1.json")
    assert spec.combinations == 72
    assert {w.kind for w in spec.workloads} == {"inference"}
    assert [w.ref["deployment"] for w in spec.workloads[1:]] == ["auto", "auto"]
    assert set(dict(spec.options)["server"]) == {"GB200-NVL72", "DGX-H100", "DGX-H200", "DGX-B200"}
    assert [o.label for o in spec.objectives] == SERVING_OBJECTIVES


@pytest.mark.parametrize("workload,message", [
    ("deepseek-r9-serve", "s.json: $.workloads[0]: 'deepseek-r9-serve' is neither a preset ("),
    ({**LLAMA, "slo": {"ttft_ms": 2000, "tpot_ms": -5}},
     "s.json: $.workloads[0].slo.tpot_ms: expected a number of milliseconds above 0"),
    ({**LLAMA, "deployment": "fastest"},
     "s.json: $.workloads[0].deployment: expected a JSON object or \"auto\", got 'fastest'"),
    ({**LLAMA, "kind": "serving"}, "s.json: $.workloads[0].kind: expected \"inference\", got 'serving'"),
    ({"kind": "inference", "name": "no model"}, "s.json: $.workloads[0].model: missing"),
])
def test_cli_bad_inference_workload_exits_2_with_one_located_line(tmp_path, capsys, workload, message):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({**SERVING, "workloads": [workload]}))
    out = tmp_path / "r.csv"
    assert main(["sweep", str(spec), "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cluster-designer: {spec.parent}/{message}") and err.count("\n") == 1
    assert not out.exists() and list(tmp_path.iterdir()) == [spec]


def test_a_bad_workload_in_a_spec_is_refused_before_anything_runs():
    with pytest.raises(SweepSpecError, match=r"^x.json: \$.workloads\[1\].requests: "):
        sweep_spec_from_dict({**SERVING, "workloads": [AUTO, {**LLAMA, "requests": 7}]}, "x.json")


def test_cli_says_how_many_designs_miss_their_slos(tmp_path, capsys):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({**SERVING, "options": {"system": "DGX-H200", "count": [1, 2]},
                                "workloads": [AUTO, TOO_FAST]}))
    out = tmp_path / "r.csv"
    assert main(["sweep", str(spec), "-o", str(out), "--jobs", "1", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "4 designs, 0 with an error, 2 missing their serving SLOs, " in err
    assert "(inference.usd_per_million_output_tokens:min, inference.tpot_ms:min, power.facility_kw:min)" in err
    assert read_results(out).misses_slo.tolist() == [False, True, False, True]  # workloads vary fastest


@pytest.mark.parametrize("workload,message", [
    ("deepseek-r9-serve", "recipe.workload: unknown preset 'deepseek-r9-serve'"),
    ({**AUTO, "slo": {"ttft_ms": 0, "tpot_ms": 50}}, "recipe.workload.slo.ttft_ms: expected a number"),
])
def test_a_recipe_edited_by_hand_names_its_bad_workload(workload, message):
    recipe = {"template": "supernode", "options": {"system": "DGX-H200", "count": 1},
              "workload": workload, "workload_label": "x", "keep_preset_layout": False,
              "stack": None, "assumptions": {}}
    outcome = evaluate_recipe(recipe)
    assert outcome["error"].startswith(message) and "\n" not in outcome["error"]
    assert outcome["metrics"] == {} and outcome["meets_slo"] is None
