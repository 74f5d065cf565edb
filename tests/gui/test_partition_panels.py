"""Every panel shows each workload's figures on a design with several workloads: the Performance
panel's chooser (the main workload, then each service), the Overview's, Power's and Cost's rows
per partition, as the evaluation has them; the canvas tags the blocks each partition runs on; a
warning about partitions selects the blocks it names. A design with one workload looks as it
always did."""

import dataclasses
from pathlib import Path

import pytest

from core.catalog import default_catalog
from core.generators import SupernodeOptions, generate_supernode
from core.inference_workload import inference_workload_from_dict, inference_workload_to_dict, load_inference_preset
from core.operations import ChangeService
from core.project import load_project
from core.services import Partition, Service
from core.workload import load_preset
from designer.canvas.partition_tags import PARTITION_COLORS, PartitionTag, tags_in_block
from designer.common.format import money, num, pct, power

EXAMPLES = Path(__file__).resolve().parents[2] / "resources" / "examples"
LLAMA = load_inference_preset("llama31-70b-serve")



def _plain(panel, label: str) -> str:
    """A row's value with the panel's no-break spaces (a value never wraps inside) as spaces."""
    return panel.value(label).replace("\u00a0", " ")

def _load(window, qtbot, design):
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.load_design(design, None)
    return window.evaluator.last.evaluation


@pytest.fixture
def train_and_serve(window, qtbot):
    """1,024 H100 (block su: 4 SUs x 32 DGX x 8) train Llama 3 70B on partition "training";
    8 GB200 NVL72 racks (block serve: 8 x 72 GPUs) serve DeepSeek-R1 as service "reasoning"."""
    return _load(window, qtbot, load_project(EXAMPLES / "train-and-serve.json", window.catalog))


def _labels(panel):
    return list(panel._values)


# --- Performance ---------------------------------------------------------------------------------
def test_the_chooser_lists_the_main_workload_then_each_service(window, train_and_serve):
    panel = window.performance_panel
    assert panel.chooser_row.isVisibleTo(panel)
    assert [panel.chooser.itemText(i) for i in range(panel.chooser.count())] == [
        "Llama 3 70B (training)", "Service reasoning: DeepSeek-R1 (V3 architecture) serving"]
    # the main workload first: its training figures on its partition of 1,024 GPUs
    ev = train_and_serve
    assert panel.value("Job GPUs") == "1,024" == num(4 * 32 * 8)
    assert panel.value("MFU") == pct(ev.performance.mfu)
    assert panel.message() == ("The main workload runs on partition training (blocks su: 1,024 GPUs, "
                               "H100-SXM5-80GB)")


def test_choosing_a_service_shows_its_serving_figures(window, qtbot, train_and_serve):
    panel = window.performance_panel
    served = train_and_serve.services[0].inference
    panel.choose("reasoning")
    assert served.runs and served.meets_slo
    assert panel.value("Workload") == "DeepSeek-R1 (V3 architecture) serving"
    assert _plain(panel, "Time to first token") == f"{served.ttft_ms:,.0f} ms  ✓ SLO 2,000 ms"
    assert _plain(panel, "Time per output token") == f"{served.tpot_ms:,.1f} ms  ✓ SLO 50.0 ms"
    assert _plain(panel, "Decode per GPU").startswith(f"{served.decode_tokens_per_s_per_gpu:,.0f} tokens/s")
    assert _plain(panel, "Per million output tokens") == money(served.usd_per_million_output_tokens)
    assert len(panel.serving_chart.points) == len(served.curve) > 1
    assert panel.breakdown.isHidden() and panel.scaling.isHidden()
    assert panel.message() == "Service reasoning runs on partition reasoning (blocks serve: 576 GPUs, GB200)"
    # what limits the service and its what-ifs are the service's own (core's service bottleneck)
    bottleneck = train_and_serve.services[0].bottleneck
    assert not panel.serving_details.isHidden() and not panel.bottleneck.isHidden()
    assert "What limits serving" in panel.bottleneck.text() and "MFU" not in panel.bottleneck.text()
    assert bottleneck.best is not None and f"{bottleneck.best.gain * 100:+.0f}%" in panel.bottleneck.text()
    # the choice stays across evaluations, and back to the main workload shows its rows again
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.evaluator.request(window.document.design)
    assert panel.chosen_service().name == "reasoning"
    assert _plain(panel, "Time to first token") == f"{served.ttft_ms:,.0f} ms  ✓ SLO 2,000 ms"
    panel.choose(None)
    assert panel.value("MFU") == pct(train_and_serve.performance.mfu) and not panel.breakdown.isHidden()


def test_a_services_baseline_marks_compare_it_with_the_baselines_service(window, qtbot, train_and_serve):
    """Pinned, then the service's decode batch halved: its TPOT shortens (better), and the main
    workload's marks are its own again when it is chosen."""
    window.baseline.pin_action.trigger()
    panel = window.performance_panel
    panel.choose("reasoning")
    assert panel.delta("Time per output token") == "= equal"
    service = window.document.design.services[0]
    raw = inference_workload_to_dict(service.workload)
    raw["deployment"]["batch"] = 32
    changed = dataclasses.replace(service, workload=inference_workload_from_dict(raw))
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.document.push(ChangeService("reasoning", changed))
    before, after = train_and_serve.services[0].inference, window.evaluator.last.evaluation.services[0].inference
    assert after.tpot_ms < before.tpot_ms
    assert panel.delta("Time per output token").endswith("better")
    assert panel.delta("Time per output token").startswith(f"−{(1 - after.tpot_ms / before.tpot_ms) * 100:.0f}")
    # a smaller batch serves fewer tokens per GPU, at a higher cost per token: both marked worse
    assert after.output_tokens_per_s_per_gpu < before.output_tokens_per_s_per_gpu
    assert panel.delta("Served output per GPU").endswith("worse")
    assert panel.delta("Per million output tokens").endswith("worse")
    panel.choose(None)
    assert panel.delta("MFU") == "= equal" and panel.delta("Time per output token") == ""


def test_a_removed_service_falls_back_to_the_main_workload(window, qtbot, train_and_serve):
    panel = window.performance_panel
    panel.choose("reasoning")
    with qtbot.waitSignal(window.evaluator.finished, timeout=30_000):
        window.services_panel.select_service("reasoning")
        window.services_panel.remove.click()
    assert panel.chooser_row.isHidden() and panel.chosen_service() is None
    assert panel.value("MFU") == pct(window.evaluator.last.evaluation.performance.mfu)


def test_a_service_without_gpus_says_why(window, qtbot, train_and_serve):
    design = window.document.design
    design.services += (Service("huge", Partition(gpus=4096), LLAMA),)
    ev = _load(window, qtbot, design)
    panel = window.performance_panel
    panel.choose("huge")
    assert not ev.services[1].inference.runs
    assert panel.verdict.isVisibleTo(panel) and "partition huge: it asks 4,096 GPUs" in panel.verdict.text()
    assert "✗ no GPUs: partition huge: it asks 4,096 GPUs" in window.overview_panel.value("huge")
    assert window.cost_panel.value("huge") == window.power_panel.value("huge") == "— (no GPUs)"


# --- Overview, Power, Cost -------------------------------------------------------------------------
def test_overview_power_and_cost_rows_of_each_partition_match_the_evaluation(window, train_and_serve):
    ev = train_and_serve
    training, reasoning = ev.partitions.all
    served = ev.services[0].inference
    assert (training.gpus, reasoning.gpus) == (1024, 576)  # 4 x 32 x 8 H100; 8 x 72 GB200
    assert window.overview_panel.value("training") == (
        f"Llama 3 70B (training), 1,024 H100-SXM5-80GB\nMFU {pct(ev.performance.mfu)} · "
        f"{ev.performance.training_days:,.1f} days")
    assert window.overview_panel.value("reasoning") == (
        f"DeepSeek-R1 (V3 architecture) serving (inference), 576 GB200\nTTFT {served.ttft_ms:,.0f} ms · "
        f"TPOT {served.tpot_ms:,.1f} ms · {served.decode_tokens_per_s_per_gpu:,.0f} tokens/s per GPU")
    for view in (training, reasoning):
        assert window.power_panel.value(view.name) == f"IT {power(view.it_kw)} · facility {power(view.facility_kw)}"
    # the partitions add up to the design: own compute plus a GPU share of the rest
    assert training.it_kw + reasoning.it_kw == pytest.approx(ev.power.it_kw)
    assert window.cost_panel.value("training") == f"{money(training.usd_per_gpu_hour)} per GPU-hour"
    assert window.cost_panel.value("reasoning") == (f"{money(reasoning.usd_per_gpu_hour)} per GPU-hour · "
                                                     f"{money(served.usd_per_million_output_tokens)} per million "
                                                     "output tokens")
    assert reasoning.usd_per_gpu_hour > training.usd_per_gpu_hour  # a GB200 hour costs more


def test_a_partition_named_like_a_row_keeps_both_rows(window, qtbot, train_and_serve):
    design = window.document.design
    design.services = (Service("GPUs", Partition(blocks=("serve",)), design.services[0].workload),)
    _load(window, qtbot, design)
    assert window.overview_panel.value("GPUs") == "1,600"
    assert window.overview_panel.value("GPUs (partition)").startswith("DeepSeek-R1")


def test_an_inference_main_workload_shows_its_headline_and_its_token_price(window, qtbot):
    design = generate_supernode(SupernodeOptions("GB200-NVL72", 1), default_catalog())
    design.workload = load_inference_preset("deepseek-r1-serve")
    ev = _load(window, qtbot, design)
    served = ev.inference
    assert window.overview_panel.value("Time to first token") == f"{served.ttft_ms:,.0f} ms (SLO 2,000 ms)"
    assert window.overview_panel.value("Decode per GPU") == f"{served.decode_tokens_per_s_per_gpu:,.0f} tokens/s"
    cost = window.cost_panel
    assert cost.value("Per million output tokens") == money(served.usd_per_million_output_tokens)
    assert "Training run" not in _labels(cost) and "Partitions" not in _labels(cost)
    assert window.performance_panel.chooser_row.isHidden()


# Labels of the rows as they were before several workloads (a 1,024-GPU fat tree of DGX H100
# training Llama 3 70B): nothing added, nothing moved.
ONE_WORKLOAD_ROWS = {
    "overview": ["GPUs", "Servers / super-nodes", "Scale-out switches", "   leaf", "   spine",
                 "Scale-up switch chips", "NICs", "DPUs", "Storage nodes", "Links", "Cables", "Transceivers",
                 "Model", "MFU", "Training time"],
    "power": ["IT (nameplate)", "IT (typical in training)", "PUE", "Facility", "Max rack", "Network share of IT",
              "All-in per GPU", "Air", "Energy (facility)", "Electricity cost", "CO₂", "GPU-hours"],
    # issue 22 added each part's yearly capital charge and the delivered GPU-hour
    "cost": ["Hardware", "Facility", "Total", "Per GPU", "Energy", "Maintenance", "Colocation", "Opex",
             "TCO (depreciation + opex)", "Servers and GPUs", "Network", "Building shell",
             "Power and cooling plant", "Per GPU-hour", "Per delivered GPU-hour", "Training run",
             "Per million tokens trained"],
}


@pytest.mark.parametrize("partition", [None, Partition("training", gpus=1024)])
def test_a_design_with_one_workload_looks_as_before(window, qtbot, small_design, partition):
    small_design.workload = load_preset("llama3-70b")
    small_design.workload_partition = partition
    ev = _load(window, qtbot, small_design)
    assert (ev.partitions is None) == (partition is None)
    for name, labels in ONE_WORKLOAD_ROWS.items():
        panel = getattr(window, f"{name}_panel")
        shown = _labels(panel)
        if partition is not None:  # a partition is listed, after every row there was
            assert shown[len(labels):] == ["training"]
            shown = shown[:len(labels)]
        assert shown == labels
    performance = window.performance_panel
    assert performance.chooser_row.isHidden() and performance.message() == ""
    assert all(not card.partition_tags for card in window.scene.cards())


# --- canvas ----------------------------------------------------------------------------------------
def test_the_blocks_of_each_partition_carry_its_tag(window, train_and_serve):
    scene = window.scene
    assert scene.card("su").partition_tags == (PartitionTag("training", PARTITION_COLORS[0], True),)
    assert scene.card("serve").partition_tags == (PartitionTag("reasoning", PARTITION_COLORS[1], True),)
    assert scene.card("spine").partition_tags == () and scene.card("storage-fabric").partition_tags == ()
    assert "Partition reasoning: its workload runs here" in scene.card("serve").toolTip()
    # inside a partition's block, every card runs its workload
    scene.set_block("su")
    assert {card.partition_tags for card in scene.cards()} == {
        (PartitionTag("training", PARTITION_COLORS[0], True),)}


def test_tags_follow_edits_and_undo(window, train_and_serve):
    scene, panel = window.scene, window.services_panel
    scene.select(["su"])
    panel.add_partition.take.click()
    panel.add_name.setText("batch")
    panel.add_button.click()  # a second partition on su: both tags, an overlap
    assert [tag.name for tag in scene.card("su").partition_tags] == ["training", "batch"]
    window.document.undo_stack.undo()
    assert [tag.name for tag in scene.card("su").partition_tags] == ["training"]
    # a partition of blocks inside su: su holds part of it
    window.document.design.services += (Service("part", Partition(blocks=("su/nodes",)), LLAMA),)
    scene.sync()
    assert PartitionTag("part", PARTITION_COLORS[2], False) in scene.card("su").partition_tags
    assert PartitionTag("part", PARTITION_COLORS[2], False).text == "part (part)"


def test_tags_are_worked_out_from_the_partition_paths_only():
    """Paths that name nothing on the level shown, deeper levels, and GPU counts: no tag."""
    design = load_project(EXAMPLES / "train-and-serve.json")
    design.services += (Service("count", Partition(gpus=64), LLAMA),
                        Service("deep", Partition(blocks=("serve/leaf", "serve/nodes")), LLAMA))
    assert {k: [t.text for t in v] for k, v in tags_in_block(design, "").items()} == {
        "su": ["training"], "serve": ["reasoning", "deep (part)"]}
    inside = tags_in_block(design, "serve")
    assert [t.text for t in inside["leaf"]] == ["reasoning", "deep"]


# --- warnings --------------------------------------------------------------------------------------
def test_clicking_an_overlap_warning_selects_the_blocks_it_names(window, qtbot, train_and_serve):
    design = window.document.design
    design.services += (Service("shadow", Partition(blocks=("serve",)), LLAMA),)
    ev = _load(window, qtbot, design)
    overlap = next(w for w in ev.warnings if w.code == "PARTITIONS_OVERLAP")
    assert overlap.components == ("serve",)  # core names the shared block
    panel = window.warnings_panel
    item = next(panel.item(i) for i in range(panel.count()) if panel.item(i).text().startswith("PARTITIONS_OVERLAP"))
    panel.itemClicked.emit(item)
    assert window.scene.block_path == "" and window.scene.selected_ids() == ["serve"]


def test_clicking_an_unknown_block_error_selects_the_partitions_blocks_that_exist(window, qtbot, train_and_serve):
    design = window.document.design
    design.services = (Service("reasoning", Partition(blocks=("serve", "gone")), design.services[0].workload),)
    ev = _load(window, qtbot, design)
    error = next(w for w in ev.warnings if w.code == "PARTITION_UNKNOWN_BLOCK")
    assert error.components == ("serve", "gone")
    panel = window.warnings_panel
    item = next(panel.item(i) for i in range(panel.count())
                if panel.item(i).text().startswith("PARTITION_UNKNOWN_BLOCK"))
    panel.itemClicked.emit(item)
    assert window.scene.selected_ids() == ["serve"]
