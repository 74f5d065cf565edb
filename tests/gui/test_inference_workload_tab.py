"""Workload tab, inference side: presets and the kind switch are one undo step each; the form
writes every schema form (request mix, disaggregated, auto, host memory, remote prefix cache,
with and without MLA) through Apply; an invalid form says why inline and changes nothing."""

import copy

import pytest

from core.catalog import default_catalog
from core.generators import SupernodeOptions, generate_supernode
from core.inference_workload import (inference_workload_from_dict, inference_workload_to_dict,
                                     list_inference_presets, load_inference_preset)
from core.workload import load_preset

R1 = "deepseek-r1-serve"
INFERENCE_PRESETS = sorted(list_inference_presets())


@pytest.fixture
def nvl72():
    return generate_supernode(SupernodeOptions("GB200-NVL72", 1), default_catalog())


def _shown(panel, kind: str) -> bool:
    inference = kind == "inference"
    return (panel.kind_buttons[kind].isChecked() and panel.inference_form.isVisibleTo(panel) == inference
            and panel.training_body.isVisibleTo(panel) != inference)


@pytest.mark.parametrize("name", INFERENCE_PRESETS)
def test_choosing_an_inference_preset_is_one_undo_step(window, nvl72, name):
    nvl72.workload = load_preset("llama3-70b")
    window.load_design(nvl72, None)
    panel, stack = window.workload_panel, window.document.undo_stack
    label = panel.preset.itemText(panel.preset.findData(name))
    assert label.startswith(f"{name} (inference)")  # marked in the one preset list
    panel.choose_preset(name)
    preset = load_inference_preset(name)
    assert window.document.design.workload == preset  # as written: a deployment is not fitted
    assert stack.count() == 1 and stack.undoText() == f"Workload {name}"
    assert _shown(panel, "inference") and panel.preset.currentData() == name
    assert panel.inference_form.name.text() == preset.name
    stack.undo()
    assert window.document.design.workload == load_preset("llama3-70b") and _shown(panel, "training")
    stack.redo()
    assert window.document.design.workload == preset and _shown(panel, "inference")


def test_switching_the_kind_is_one_undo_step_and_comes_back_to_the_last_workload(window, nvl72):
    window.load_design(nvl72, None)
    panel, stack = window.workload_panel, window.document.undo_stack
    panel.choose_preset("llama3-70b")
    training = window.document.design.workload
    panel.kind_buttons["inference"].click()  # no inference workload yet: the first preset that runs
    # (GB200 has no int8 rate: DeepSeek-R1 int8, first by name, cannot run; its FP8 preset can)
    assert window.document.design.workload == load_inference_preset("deepseek-r1-serve")
    assert stack.count() == 2 and _shown(panel, "inference")
    panel.choose_preset(INFERENCE_PRESETS[-1])
    panel.kind_buttons["training"].click()  # back to the training job this tab showed
    assert window.document.design.workload == training and stack.count() == 4 and _shown(panel, "training")
    panel.kind_buttons["inference"].click()  # and to the inference workload it left
    assert window.document.design.workload == load_inference_preset(INFERENCE_PRESETS[-1])
    assert stack.count() == 5
    stack.undo()
    assert window.document.design.workload == training
    panel.kind_buttons["training"].click()  # already training: nothing to do
    assert stack.count() == 5 and stack.index() == 4


R1_JSON = inference_workload_to_dict(load_inference_preset(R1))
MIX = {"mix": [{"input_tokens": 4096, "output_tokens": 1024, "share": 0.75},
               {"input_tokens": 512, "output_tokens": 2048, "share": 0.25}]}
DISAGGREGATED = {"mode": "disaggregated", "prefill": {"tp": 1, "pp": 1, "ep": 8, "dp": 8, "batch": 1},
                 "decode": {"tp": 1, "pp": 1, "ep": 16, "dp": 16, "batch": 128}}
SCHEMA_FORMS = {
    "mix": {"requests": MIX},
    "disaggregated": {"deployment": DISAGGREGATED},
    "auto": {"deployment": "auto"},
    "host": {"kv_cache": {"placement": "host", "host_gb_per_gpu": 256.0, "host_link_gbyte_s": 64.0}},
    "host-link-from-catalog": {"kv_cache": {"placement": "host", "host_gb_per_gpu": 480.5}},
    "remote": {"kv_cache": {"placement": "remote", "prefix_hit_rate": 0.4}},
    "fp4-fp8-slo": {"precision": "fp4", "kv_cache_precision": "fp8", "slo": {"ttft_ms": 750.5, "tpot_ms": 12.5}},
}


def _variant(changes: dict) -> dict:
    return {**copy.deepcopy(R1_JSON), **copy.deepcopy(changes)}


@pytest.mark.parametrize("form", sorted(SCHEMA_FORMS))
def test_every_schema_form_round_trips_through_the_form(window, nvl72, form):
    """A workload of each form, shown and applied unchanged: the form writes it back exactly."""
    workload = inference_workload_from_dict(_variant(SCHEMA_FORMS[form]))
    nvl72.workload = workload
    window.load_design(nvl72, None)
    panel = window.workload_panel
    assert _shown(panel, "inference")
    panel.apply.click()
    assert window.document.undo_stack.count() == 0 and window.document.design.workload == workload


def test_the_form_writes_each_schema_form_the_user_enters(window, nvl72):
    """Each form entered field by field and applied is the JSON written by hand here."""
    nvl72.workload = load_inference_preset(R1)
    window.load_design(nvl72, None)
    panel, stack = window.workload_panel, window.document.undo_stack
    form = panel.inference_form

    def applied() -> dict:
        panel.apply.click()
        return inference_workload_to_dict(window.document.design.workload)

    # a request mix: one class more (the last one's share halved), then the user's values
    form.requests.add_row()
    assert [share for *_, share in form.requests.classes()] == [0.5, 0.5]
    for spin, value in zip(form.requests.rows[1][:3], (512, 2048, 0.25)):
        spin.setValue(value)
    form.requests.rows[0][2].setValue(0.75)
    assert applied() == _variant({"requests": MIX}) and stack.count() == 1
    # disaggregated: the prefill row starts as the aggregated layout; the user changes decode
    form.mode.setCurrentIndex(form.mode.findData("disaggregated"))
    form.layouts.spins["prefill"]["batch"].setValue(1)
    for key, value in (("ep", 16), ("dp", 16), ("batch", 128)):
        form.layouts.spins["decode"][key].setValue(value)
    assert applied() == _variant({"requests": MIX, "deployment": DISAGGREGATED}) and stack.count() == 2
    # auto, and a KV cache that may spill to 256 GB of host memory per GPU at 64 GB/s
    form.mode.setCurrentIndex(form.mode.findData("auto"))
    form.placement.setCurrentIndex(form.placement.findData("host"))
    form.host_gb.setValue(256.0)
    form.host_link.setValue(64.0)
    assert applied() == _variant({"requests": MIX, "deployment": "auto", "kv_cache": SCHEMA_FORMS["host"]["kv_cache"]})
    # a remote prefix cache serving 40 % of the prompt tokens; one request shape again; no MLA
    form.placement.setCurrentIndex(form.placement.findData("remote"))
    form.hit_rate.setValue(40.0)
    form.requests.remove_row(1)  # its share goes to the row above: one shape, share 1
    form.mla.setChecked(False)
    expected = _variant({"deployment": "auto", "kv_cache": {"placement": "remote", "prefix_hit_rate": 0.4}})
    del expected["model"]["mla"]
    assert applied() == expected and stack.count() == 4
    # undo walks back step by step, the form following
    stack.undo()
    assert form.mla.isChecked() and form.placement.currentData() == "host" and len(form.requests.rows) == 2
    for _ in range(3):
        stack.undo()
    assert window.document.design.workload == load_inference_preset(R1)
    assert form.mode.currentData() == "aggregated" and len(form.requests.rows) == 1


def test_revert_puts_the_design_values_back_in_the_form(window, nvl72):
    nvl72.workload = load_inference_preset(R1)
    window.load_design(nvl72, None)
    panel = window.workload_panel
    form = panel.inference_form
    form.spins["layers"].setValue(7)
    form.requests.add_row()
    form.placement.setCurrentIndex(form.placement.findData("remote"))
    panel.revert.click()
    assert form.spins["layers"].value() == 61 and len(form.requests.rows) == 1
    assert form.placement.currentData() == "hbm" and window.document.undo_stack.count() == 0


@pytest.mark.parametrize("edit, message", [
    (lambda form: form.layouts.spins["decode"]["tp"].setValue(3),
     "workload.deployment.tp: 3 does not divide the 128 attention heads"),
    (lambda form: (form.requests.add_row(), form.requests.rows[0][2].setValue(0.9)),
     "workload.requests.mix: the shares sum to 1.4, expected 1"),
    (lambda form: form.requests.rows[0][0].setValue(131_000),
     "workload.requests: input + output = 132,024 tokens exceed the model's context (model.seq_len 131,072)"),
    (lambda form: form.placement.setCurrentIndex(form.placement.findData("host")),  # 0 GB of host memory
     "workload.kv_cache.host_gb_per_gpu: expected a number of GB above 0"),
])
def test_an_invalid_form_says_why_inline_and_changes_nothing(window, nvl72, qtbot, edit, message):
    nvl72.workload = load_inference_preset(R1)
    window.load_design(nvl72, None)
    panel = window.workload_panel
    edit(panel.inference_form)
    with qtbot.waitSignal(panel.error) as error:
        panel.apply.click()
    assert error.args[0].startswith(message) and "\n" not in error.args[0]
    assert message in panel.check.text() and "#c62828" in panel.check.text()  # red, under the form
    assert window.document.undo_stack.count() == 0
    assert window.document.design.workload == load_inference_preset(R1)


def test_the_check_line_adds_up_the_deployment_against_the_design(window, nvl72, qtbot):
    nvl72.workload = load_inference_preset(R1)  # TP 1 x PP 1 x DP 8 on 72 GPUs
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(nvl72, None)
    panel = window.workload_panel
    assert "TP×PP×DP = 1×1×8 = <b>8</b> GPUs" in panel.check.text()
    assert "fits the design's 72 GPUs" in panel.check.text()
    panel.inference_form.layouts.spins["decode"]["dp"].setValue(128)
    assert "exceeds the design's 72 GPUs" in panel.check.text()


def test_a_request_mix_table_never_loaded_still_adds_a_class(qtbot):
    """The mix table starts with one request shape, so "Add request class" works on a form no
    workload was loaded into yet (it used to index an empty list)."""
    from designer.workload.inference_editors import RequestMixTable

    table = RequestMixTable()
    qtbot.addWidget(table)
    assert table.classes() == [(2048, 256, 1.0)]
    table.add_button.click()
    assert table.classes() == [(2048, 256, 0.5), (2048, 256, 0.5)]
