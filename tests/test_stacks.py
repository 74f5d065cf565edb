"""Software-stack presets (core/stacks.py): what each was checked against, what choosing one
does to a design's MFU, and how the choice is saved, reported and refused."""

import dataclasses
import json
from pathlib import Path

import pytest

from core.assumptions.performance import STACK_IDS
from core.errors import ProjectFileError
from core.evaluate import evaluate, evaluation_to_json
from core.project import load_project, save_project
from core.stacks import PRESETS, UnknownStackError, apply_stack, get_preset, stack_status, with_stack
from designer.cli import main
from tests.validation import cases, moe_cases

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "resources/examples/dgx-h100-superpod-4su.json"
# Settings a NeMo recipe adds on top of its stack (bucket size, GPT-3's dropout; the FP8
# precision config's FP8 primary weights, which Megatron-Bridge 25.11's rows state and NeMo
# 25.04's do not): the rows carry them, every other listed row runs the preset's values exactly.
RECIPE_KEYS = {"nemo-2024": {"dp_bucket_mb", "dropout"}, "nemo-2025": {"fp8_primary_weights"},
               # NVIDIA's MoE benchmarks force-balance the experts (the tables' footnote)
               "megatron-core-moe-2025": {"ep_imbalance"}}


def test_the_presets_are_the_ids_the_project_file_accepts():
    assert tuple(PRESETS) == STACK_IDS
    for required in ("megatron-lm-2021", "megatron-lm-2022", "megatron-deepspeed-2021",
                     "composer-fsdp-2023", "nemo-2024", "nemo-2025", "conservative"):
        preset = PRESETS[required]
        assert preset.name and 2015 <= preset.year <= 2030 and len(preset.description) > 100


@pytest.mark.parametrize("name", [n for n in STACK_IDS if PRESETS[n].checked_against])
def test_validation_rows_named_by_a_preset_run_with_its_values(name):
    """The validation suite evaluates these rows (within their tolerances) with the preset."""
    preset = PRESETS[name]
    by_id = {case.id: case for case in (*cases.ALL_PERF_CASES, *moe_cases.MOE_CASES)}
    for row in preset.checked_against:
        stack = by_id[row].stack
        assert {k: stack.get(k) for k in preset.overrides} == dict(preset.overrides), row
        assert set(stack) - set(preset.overrides) <= RECIPE_KEYS.get(name, set()), row


def test_nemo_2024_is_the_engine_default():
    assert get_preset("nemo-2024").assumptions() == evaluate(load_project(EXAMPLE)).assumptions.performance


def _mfu(args, capsys):
    assert main(["evaluate", str(EXAMPLE), *args]) == 0
    perf = json.loads(capsys.readouterr().out)["performance"]
    return perf["mfu"], perf["stack"]


def test_stack_option_moves_mfu_the_expected_way(capsys):
    """No TP/PP/DP overlap and no FlashAttention cost MFU; the conservative stack sits between."""
    default, default_stack = _mfu([], capsys)
    old, old_stack = _mfu(["--stack", "megatron-lm-2021"], capsys)
    conservative, _ = _mfu(["--stack", "conservative"], capsys)
    assert default_stack == {"id": "nemo-2024", "name": PRESETS["nemo-2024"].name,
                             "custom": False, "label": PRESETS["nemo-2024"].name}
    assert old_stack["id"] == "megatron-lm-2021" and not old_stack["custom"]
    assert old < conservative < default
    assert default - old > 0.05


def test_same_design_under_two_stacks_through_the_api():
    design = load_project(EXAMPLE)
    before = design.assumptions
    a = evaluate(apply_stack(design, "nemo-2024"))
    b = evaluate(apply_stack(design, "megatron-lm-2022"))
    assert design.assumptions is before  # the design itself is not changed
    assert b.performance.mfu < a.performance.mfu
    assert evaluation_to_json(b)["performance"]["stack"]["id"] == "megatron-lm-2022"


def test_a_project_saved_with_a_stack_loads_and_evaluates_with_it(tmp_path, capsys):
    path = tmp_path / "p.json"
    assert main(["generate", "fat-tree", "--gpus", "1024", "--server", "DGX-H100", "--switch",
                 "QM9700", "--workload", "gpt3-175b", "--stack", "megatron-deepspeed-2021",
                 "-o", str(path)]) == 0
    assert json.loads(path.read_text())["assumptions"]["performance"]["stack"] == "megatron-deepspeed-2021"
    loaded = load_project(path)
    assert loaded.assumptions.performance == get_preset("megatron-deepspeed-2021").assumptions()
    capsys.readouterr()
    stored, stack = _mfu_of(path, capsys)
    again, _ = _mfu_of(path, capsys, "--stack", "megatron-deepspeed-2021")
    assert stack["id"] == "megatron-deepspeed-2021" and stored == again
    resaved = tmp_path / "q.json"
    save_project(loaded, resaved)
    assert load_project(resaved).assumptions == loaded.assumptions


def _mfu_of(path, capsys, *args):
    assert main(["evaluate", str(path), *args]) == 0
    perf = json.loads(capsys.readouterr().out)["performance"]
    return perf["mfu"], perf["stack"]


def test_values_changed_after_a_preset_are_custom_based_on_it():
    chosen = with_stack(None, "megatron-lm-2021")
    edited = dataclasses.replace(chosen.performance, tp_overlap=0.5)
    status = stack_status(edited)
    assert status.custom and status.preset.id == "megatron-lm-2021"
    assert status.label == "custom (based on Megatron-LM 2021)"
    assert not stack_status(chosen.performance).custom


def test_unknown_stack_is_a_one_line_error_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "p.json"
    with pytest.raises(SystemExit) as exit_:  # argparse's own error path (cli._Parser)
        main(["generate", "supernode", "--system", "DGX-H100", "--count", "2",
              "--stack", "megatron-2019", "-o", str(out)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "megatron-2019" in err and "nemo-2024" in err
    assert not out.exists()
    with pytest.raises(UnknownStackError, match="valid stacks: megatron-lm-2021"):
        apply_stack(load_project(EXAMPLE), "nemo")


def test_unknown_stack_in_a_project_file_names_where(tmp_path):
    raw = json.loads(EXAMPLE.read_text())
    raw.setdefault("assumptions", {}).setdefault("performance", {})["stack"] = "nemo-1999"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(ProjectFileError, match=r"performance\.stack.*nemo-2024"):
        load_project(path)


def test_stacks_command_lists_every_preset(capsys):
    assert main(["stacks"]) == 0
    table = capsys.readouterr().out
    for preset in PRESETS.values():
        assert preset.id in table and preset.name in table
    assert main(["stacks", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [p["id"] for p in listed] == list(STACK_IDS)
    assert listed[0]["checked_against"][:4] == ["1", "2", "3", "4"]
    assert listed[0]["overrides"]["tp_overlap"] == 0.0


def test_reports_name_the_stack_and_say_custom(tmp_path, capsys):
    design = apply_stack(load_project(EXAMPLE), "megatron-lm-2022")
    design.assumptions = dataclasses.replace(
        design.assumptions, performance=dataclasses.replace(design.assumptions.performance, pp_overlap=1.0))
    path = tmp_path / "custom.json"
    save_project(design, path)
    assert main(["evaluate", str(path), "--format", "md"]) == 0
    assert "| Software stack | custom (based on Megatron-LM 2022 (sequence parallelism)) |" in capsys.readouterr().out
    _, stack = _mfu_of(path, capsys)
    assert stack == {"id": "megatron-lm-2022", "name": PRESETS["megatron-lm-2022"].name, "custom": True,
                     "label": "custom (based on Megatron-LM 2022 (sequence parallelism))"}


def test_the_conservative_stack_lies_where_its_description_says(tmp_path):
    """Composer FSDP rows: it predicts at least what Composer reached (the numbers quoted in
    the description); NeMo 24.09 rows: 5-10 MFU points below what NVIDIA's stack reached."""
    from tests.validation import suite

    preset = get_preset("conservative")
    by_id = {case.id: case for case in (*cases.ALL_PERF_CASES, *moe_cases.MOE_CASES)}
    for row in preset.bracketed_by:
        case = by_id[row]
        predicted = suite.predict(dataclasses.replace(case, stack=dict(preset.overrides)), tmp_path,
                                  use_subprocess=False).util
        published = suite.published_util(case)[0]
        if row in ("14", "16"):
            assert predicted >= published - 0.005, row
            assert f"{predicted:.1%}" in preset.description, row
        else:
            assert 0.05 <= published - predicted <= 0.10, row
