"""Sweeps: the spec's checks, the rows of a known sweep, error rows, the Pareto front, recipes
that rebuild their row, and the command's one-line errors."""

import csv
import json
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from core.compare import METRICS, metric_value
from core.errors import DesignError
from core.evaluate import evaluate, evaluation_to_json
from core.generators import FatTreeOptions, generate_fat_tree
from core.limits import MAX_SWEEP_COMBINATIONS
from core.sweep.pareto import pareto_mask
from core.sweep.recipe import RecipeError, design_from_recipe, evaluate_recipe
from core.sweep.results import read_results, results_csv
from core.sweep.run import run_sweep
from core.sweep.spec import SweepSpecError, load_sweep_spec, sweep_spec_from_dict
from designer.cli import main

ROOT = Path(__file__).resolve().parent.parent
SWEEPS = ROOT / "resources" / "sweeps"

_JSON = st.recursive(st.none() | st.booleans() | st.integers(-10, 10**6) | st.floats(allow_nan=False)
                     | st.text(max_size=12),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                     max_leaves=12)
SMALL = {"template": "fat-tree",
         "options": {"gpus": [1024], "server": "DGX-H100", "switch": ["QM9700", "SN5600"],
                     "island_gpus": [None, 1001]},
         "workloads": ["llama3-70b"]}


def dominates(a, b):
    return bool(np.all(a <= b) and np.any(a < b))


# --- Pareto front -----------------------------------------------------------------------------
@given(arrays(float, st.tuples(st.integers(0, 60), st.integers(1, 4)),
              elements=st.sampled_from([0.0, 1.0, 2.0, 3.0, 2.5, math.nan, 1e15, 1e15 + 2])),
       st.lists(st.booleans(), min_size=4, max_size=4))
def test_pareto_front_is_exactly_the_non_dominated_complete_rows(values, maximize):
    maximize = maximize[:values.shape[1]]
    mask = pareto_mask(values, maximize)
    costs = values * np.where(maximize, -1.0, 1.0)
    complete = ~np.isnan(values).any(axis=1)
    for i in range(len(values)):
        dominated = any(dominates(costs[j], costs[i]) for j in range(len(values)) if complete[j])
        assert mask[i] == (complete[i] and not dominated), (i, values[i])


def test_pareto_keeps_duplicates_and_drops_incomplete_rows():
    values = np.array([[1, 2], [1, 2], [2, 1], [2, 2], [math.nan, 0]])
    assert pareto_mask(values, [False, False]).tolist() == [True, True, True, False, False]
    assert pareto_mask(values, [True, True]).tolist() == [False, False, False, True, False]


# --- spec checks ------------------------------------------------------------------------------
@pytest.mark.parametrize("change,message", [
    ({"bogus": 1}, "x.json: $.bogus: unknown key"),
    ({"template": "torus"}, "x.json: $.template: expected one of fat-tree, supernode"),
    ({"options": {"gpus": [], "server": "DGX-H100", "switch": "QM9700"}},
     "x.json: $.options.gpus: empty list"),
    ({"options": {"gpus": [1024, "many"], "server": "DGX-H100", "switch": "QM9700"}},
     "x.json: $.options.gpus[1]: expected a whole number, got 'many'"),
    ({"options": {"gpus": 1024, "server": "DGX-H100", "switch": "QM9700", "color": "red"}},
     "x.json: $.options.color: unknown option"),
    ({"options": {"gpus": 1024, "server": "DGX-H100"}}, "x.json: $.options: missing required option switch"),
    ({"workloads": []}, "x.json: $.workloads: empty list"),
    ({"workloads": ["llama9"]}, "x.json: $.workloads[0]: 'llama9' is neither a preset"),
    ({"stacks": ["nemo-2024", "tensorflow"]}, "x.json: $.stacks[1]: unknown software stack 'tensorflow'"),
    ({"assumptions": {"power.pue": [1.2, 0.5]}}, "x.json: $.assumptions.power.pue[1]: 0.5 is below the minimum 1.0"),
    ({"assumptions": {"power.puu": 1.2}}, "x.json: $.assumptions.power.puu: unknown assumption"),
    ({"objectives": {"capex": "min"}}, "x.json: $.objectives.capex: 'capex': unknown metric"),
    ({"objectives": {"cost.capex_usd": "smallest"}}, "x.json: $.objectives.cost.capex_usd: cost.capex_usd: direction"),
    ({"options": {"gpus": list(range(8, 8 * 1001, 8)), "server": "DGX-H100",
                  "switch": ["QM9700"] * 101}},
     f"x.json: $: 101,000 combinations (1000 gpus x 101 switch); a sweep holds at most {MAX_SWEEP_COMBINATIONS:,}"),
])
def test_bad_spec_is_one_located_error(change, message):
    with pytest.raises(SweepSpecError) as info:
        sweep_spec_from_dict({**SMALL, **change}, "x.json")
    assert str(info.value).startswith(message)
    assert "\n" not in str(info.value)


def test_default_objectives_leave_out_time_to_train_without_a_workload():
    with_workload = sweep_spec_from_dict(SMALL)
    without = sweep_spec_from_dict({k: v for k, v in SMALL.items() if k != "workloads"})
    assert [o.label for o in with_workload.objectives] == [
        "performance.training_days:min", "cost.capex_usd:min", "power.facility_kw:min"]
    assert [o.label for o in without.objectives] == ["cost.capex_usd:min", "power.facility_kw:min"]


def test_objectives_by_unique_key_take_the_metrics_better_side():
    spec = sweep_spec_from_dict(SMALL, objectives=["mfu", "capex_usd:max"])
    assert [o.label for o in spec.objectives] == ["performance.mfu:max", "cost.capex_usd:max"]


@pytest.mark.parametrize("path", sorted(SWEEPS.glob("*.json")), ids=lambda p: p.stem)
def test_example_specs_load(path):
    assert load_sweep_spec(path).combinations >= 16


def test_ib_vs_roce_example_covers_both_switches_and_islands():
    spec = load_sweep_spec(SWEEPS / "ib-vs-roce-16k.json")
    options = dict(spec.options)
    assert set(options["switch"]) == {"QM9700", "SN5600", "TH5"}
    assert None in options["island_gpus"] and {2048, 4096} <= set(options["island_gpus"])
    assert options["gpus"] == (16384,)


# --- rows -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_results():
    spec = sweep_spec_from_dict(SMALL)
    recipes, outcomes = run_sweep(spec, jobs=1)
    return spec, recipes, outcomes


def test_known_small_sweep_has_the_expected_rows(small_results, catalog):
    spec, recipes, outcomes = small_results
    assert [(r["options"]["switch"], r["options"]["island_gpus"]) for r in recipes] == [
        ("QM9700", None), ("QM9700", 1001), ("SN5600", None), ("SN5600", 1001)]
    qm9700 = outcomes[0]["metrics"]
    # 1,024 DGX H100 GPUs on QM9700: 32 leaves + 16 spines, rail-optimised, full bisection
    assert qm9700["counts.gpus"] == 1024 and qm9700["counts.switches"] == 48
    assert qm9700["bandwidth.bisection_tbit_s"] == pytest.approx(1024 * 400 / 2 / 1000)
    assert outcomes[0]["error"] is None and qm9700["performance.training_days"] > 0
    direct = evaluation_to_json(evaluate(generate_fat_tree(
        FatTreeOptions(1024, "DGX-H100", "SN5600"), catalog)))
    assert outcomes[2]["metrics"]["counts.switches"] == direct["counts"]["switches"]
    assert outcomes[2]["metrics"]["power.it_kw"] == direct["power"]["it_kw"]


def test_invalid_combinations_are_rows_with_their_reason(small_results):
    _, _, outcomes = small_results
    for outcome in (outcomes[1], outcomes[3]):
        assert outcome["error"] == "--island-gpus 1001 must be a positive multiple of 8"
        assert outcome["metrics"] == {}


def test_workload_that_cannot_run_keeps_the_fabric_and_says_why():
    spec = sweep_spec_from_dict({**SMALL, "options": {"gpus": 64, "server": "DGX-H100",
                                                      "switch": "QM9700"},
                                 "workloads": ["llama3-405b"], "keep_preset_layout": True})
    _, outcomes = run_sweep(spec, jobs=1)
    (outcome,) = outcomes
    assert outcome["error"].startswith("workload does not run: ")
    assert "16,384" in outcome["error"] or "16384" in outcome["error"]
    assert outcome["metrics"]["counts.gpus"] == 64
    assert outcome["metrics"]["performance.training_days"] is None


def test_csv_has_parameters_metrics_error_pareto_recipe(small_results, tmp_path):
    spec, recipes, outcomes = small_results
    path = tmp_path / "r.csv"
    path.write_text(results_csv(spec, recipes, outcomes))
    rows = list(csv.DictReader(path.open()))
    assert len(rows) == 4
    assert list(rows[0])[:7] == ["index", "template", "gpus", "server", "switch", "island_gpus", "workload"]
    assert {m.path for m in METRICS} <= set(rows[0])
    assert rows[1]["error"] and rows[1]["counts.gpus"] == "" and rows[1]["pareto"] == "false"
    assert {r["pareto"] for r in rows} <= {"true", "false"}
    assert any(r["pareto"] == "true" for r in rows)
    table = read_results(path)
    assert table.failed.tolist() == [False, True, False, True]
    assert math.isnan(table.numbers["counts.gpus"][1])


def test_recipe_rebuilds_a_design_whose_evaluation_equals_the_row(small_results, tmp_path):
    spec, recipes, outcomes = small_results
    path = tmp_path / "r.csv"
    path.write_text(results_csv(spec, recipes, outcomes))
    table = read_results(path)
    for row in (0, 2):
        evaluation = evaluation_to_json(evaluate(design_from_recipe(table.recipe(row))))
        for metric in METRICS:
            value = metric_value(evaluation, metric)
            cell = table.numbers[metric.path][row]
            assert (math.isnan(cell) if value is None else cell == value), metric.path


def test_recipe_with_stack_and_assumptions_rebuilds_them():
    spec = sweep_spec_from_dict({**SMALL, "options": {"gpus": 1024, "server": "DGX-H100",
                                                      "switch": "QM9700"},
                                 "stacks": ["conservative", "nemo-2024"],
                                 "assumptions": {"power.pue": [1.1, 1.5]}})
    recipes, outcomes = run_sweep(spec, jobs=1)
    assert [(r["stack"], r["assumptions"]["power.pue"]) for r in recipes] == [
        ("conservative", 1.1), ("conservative", 1.5), ("nemo-2024", 1.1), ("nemo-2024", 1.5)]
    assert [o["metrics"]["power.pue"] for o in outcomes] == [1.1, 1.5, 1.1, 1.5]
    # the conservative stack (no communication overlap, FlashAttention-2) is slower than the default
    assert outcomes[0]["metrics"]["performance.mfu"] < outcomes[2]["metrics"]["performance.mfu"]
    design = design_from_recipe(recipes[1])
    assert design.assumptions.power.pue == 1.5
    assert design.assumptions.performance.stack == "conservative"


_RECIPE = {"template": "fat-tree", "options": {"gpus": 8, "server": "DGX-H100", "switch": "QM9700"},
           "workload": None, "workload_label": None, "keep_preset_layout": False, "stack": None,
           "assumptions": {}}


@given(st.sampled_from(sorted(_RECIPE)), _JSON)
def test_any_edited_recipe_builds_or_is_refused_in_one_line(key, value):
    recipe = {**_RECIPE, key: value}
    try:
        design_from_recipe(recipe)
    except DesignError as exc:
        assert "\n" not in str(exc)


def test_recipe_edited_by_hand_is_a_one_line_error():
    recipe = {"template": "fat-tree", "options": {"gpus": "8", "server": "DGX-H100", "switch": "QM9700"},
              "workload": None, "workload_label": None, "keep_preset_layout": False, "stack": None,
              "assumptions": {}}
    with pytest.raises(RecipeError, match=r"recipe.options.gpus: expected a whole number"):
        design_from_recipe(recipe)
    assert evaluate_recipe(recipe)["error"].startswith("recipe.options.gpus")


def test_process_pool_gives_the_same_rows_as_one_process(small_results, monkeypatch):
    import core.sweep.run

    spec, _, outcomes = small_results
    monkeypatch.setattr(core.sweep.run, "POOL_START_S", 0.0)  # a pool even for 4 designs
    _, pooled = run_sweep(spec, jobs=2)
    assert pooled == outcomes


@pytest.mark.parametrize("first_chunk_s,chunks_left,workers,expected", [
    (0.1, 10, 2, False),   # 1 s of work left: the pool would take longer to start
    (0.1, 100, 2, True),   # 10 s left: half of it saved
    (1.0, 100, 1, False),  # one worker is this process
    (0.25, 10, 4, True),   # 2.5 s left: four workers save 1.9 s, more than the start-up
])
def test_pool_only_when_it_saves_more_than_its_start_up(first_chunk_s, chunks_left, workers, expected):
    from core.sweep.run import worth_a_pool

    assert worth_a_pool(first_chunk_s, chunks_left, workers) == expected


# --- command ----------------------------------------------------------------------------------
def test_cli_sweep_writes_results(tmp_path, capsys):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps(SMALL))
    out = tmp_path / "r.csv"
    assert main(["sweep", str(spec), "-o", str(out), "--jobs", "1", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "4 designs, 2 with an error" in err and "on the Pareto front" in err
    assert read_results(out).rows == 4


@pytest.mark.parametrize("content,message", [
    ("{", "s.json: invalid JSON at line 1"),
    (json.dumps({**SMALL, "stacks": []}), "s.json: $.stacks: empty list"),
    (json.dumps({**SMALL, "options": {"gpus": [1024], "switch": "QM9700"}}),
     "s.json: $.options: missing required option server"),
])
def test_cli_bad_spec_exits_2_with_one_line_and_writes_nothing(tmp_path, capsys, content, message):
    spec = tmp_path / "s.json"
    spec.write_text(content)
    out = tmp_path / "r.csv"
    assert main(["sweep", str(spec), "-o", str(out), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"cluster-designer: {spec.parent}/{message}") and err.count("\n") == 1
    assert not out.exists() and list(tmp_path.iterdir()) == [spec]


def test_cli_bad_objective_exits_2(tmp_path, capsys):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps(SMALL))
    assert main(["sweep", str(spec), "-o", str(tmp_path / "r.csv"), "--objectives", "speed"]) == 2
    assert "--objectives: 'speed': unknown metric" in capsys.readouterr().err
    assert not (tmp_path / "r.csv").exists()


# --- open-ended specs ---------------------------------------------------------------------------
_KEYS = st.sampled_from(["template", "options", "workloads", "stacks", "assumptions", "objectives",
                         "keep_preset_layout", "name", "format"])


@given(st.dictionaries(_KEYS, _JSON, max_size=6), st.dictionaries(
    st.sampled_from(["gpus", "server", "switch", "tiers", "island_gpus", "oversubscription"]), _JSON))
def test_any_spec_is_checked_or_refused_in_one_line(raw, options):
    raw = {"template": "fat-tree", **raw}
    if isinstance(raw.get("options"), dict):
        raw["options"] = {**raw["options"], **options}
    try:
        spec = sweep_spec_from_dict(raw, "x.json")
    except SweepSpecError as exc:
        assert str(exc).startswith("x.json: $") and "\n" not in str(exc)
        return
    assert 1 <= spec.combinations <= MAX_SWEEP_COMBINATIONS
    assert len(list(spec.recipes())) == spec.combinations


def test_inline_and_file_workloads_are_embedded_in_the_recipe(tmp_path):
    preset = json.loads((ROOT / "resources" / "workloads" / "llama3-70b.json").read_text())
    (tmp_path / "mine.json").write_text(json.dumps({**preset, "name": "My 70B"}))
    spec_path = tmp_path / "s.json"
    spec_path.write_text(json.dumps({**SMALL, "options": {"gpus": 1024, "server": "DGX-H100",
                                                          "switch": "QM9700"},
                                     "workloads": ["mine.json", {**preset, "name": "Inline 70B"}]}))
    spec = load_sweep_spec(spec_path)
    recipes, outcomes = run_sweep(spec, jobs=1)
    assert [r["workload_label"] for r in recipes] == ["mine", "Inline 70B"]
    assert [r["workload"]["name"] for r in recipes] == ["My 70B", "Inline 70B"]
    # as written (64 GPUs: TP 8 x PP 4 x DP 2 in the preset), not fitted to the 1,024 GPUs
    assert outcomes[0]["metrics"]["performance.job_gpus"] == preset["parallelism"]["tp"] * \
        preset["parallelism"]["pp"] * preset["parallelism"]["dp"]
    assert design_from_recipe(recipes[1]).workload.name == "Inline 70B"


def test_supernode_sweep_rows():
    spec = sweep_spec_from_dict({"template": "supernode",
                                 "options": {"system": "GB200-NVL72", "count": [1, 2, 0]}})
    recipes, outcomes = run_sweep(spec, jobs=1)
    assert [o["metrics"].get("counts.gpus") for o in outcomes] == [72, 144, None]
    assert outcomes[2]["error"] == "--count must be positive, got 0"
    assert [o.label for o in spec.objectives] == ["cost.capex_usd:min", "power.facility_kw:min"]


def test_ctrl_c_ends_the_sweep_and_its_workers_at_once(tmp_path):
    """Ctrl+C reaches the whole process group: the command says so in one line, writes
    nothing, and neither waits for the queued designs nor lets a worker print a traceback."""
    import os
    import signal
    import subprocess
    import sys
    import time

    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"template": "fat-tree",
                                "options": {"gpus": 98304, "server": "DGX-H100",
                                            "switch": ["SN5600", "TH5"] * 20,
                                            "island_oversubscription": [1, 2, 3, 4, 5]},
                                "workloads": ["llama3-405b"]}))
    out = tmp_path / "r.csv"
    # As from a terminal: SIGINT at its default in the command, even where this test process
    # runs with it ignored (a pytest-xdist worker), which the command would inherit.
    process = subprocess.Popen(
        [sys.executable, "-m", "designer.cli", "sweep", str(spec), "-o", str(out), "--jobs", "2"],
        cwd=ROOT, stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    seen = ""
    while "design" not in seen:  # the progress bar has started: the spec is read
        seen += process.stderr.read(1)
    time.sleep(1.0)
    os.killpg(process.pid, signal.SIGINT)
    start = time.monotonic()
    try:
        rest = process.communicate(timeout=30)[1]
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert time.monotonic() - start < 5
    assert process.returncode == 130
    assert (seen + rest).rstrip().endswith("cluster-designer: interrupted")
    assert "Traceback" not in rest
    assert not out.exists()


def test_results_file_with_a_bad_number_names_line_and_column(small_results, tmp_path):
    from core.sweep.results import SweepResultsError

    spec, recipes, outcomes = small_results
    lines = results_csv(spec, recipes, outcomes).splitlines()
    lines[3] = lines[3].replace(",1024,", ",many,", 2)  # line 4: gpus, then counts.gpus
    path = tmp_path / "r.csv"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(SweepResultsError, match=rf"^{path}: line 4, column counts.gpus: 'many' is not a number$"):
        read_results(path)


def test_a_ctrl_c_while_the_pool_starts_is_acted_on_after_not_lost():
    # The pool's workers are started with SIGINT ignored (so they inherit it) and held back in
    # this process; a Ctrl+C arriving in that window (seconds on a busy machine) must still
    # interrupt the sweep once the workers are started, not be dropped (it was: the sweep then
    # ran to its end). Run in a process of its own, as the command runs: a pytest-xdist worker
    # has threads of its own that would take the signal.
    import signal
    import subprocess
    import sys

    script = (
        "import os, signal, sys\n"
        "from core.process_pool import _new_processes_ignore_sigint\n"
        "try:\n"
        "    with _new_processes_ignore_sigint():\n"
        "        os.kill(os.getpid(), signal.SIGINT)\n"
        "        print('held back', flush=True)\n"
        "    for _ in range(1000):\n"
        "        pass\n"
        "    print('lost')\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted after the window')\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=60, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert done.stdout.split() == ["held", "back", "interrupted", "after", "the", "window"]
