"""Several workloads on one design (issue 15): a training job and inference services, each on a
named partition (core/services.py, core/partitions.py), evaluated, saved and loaded."""

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from core.compare import compare_evaluations
from core.errors import DesignError, ProjectFileError
from core.evaluate import evaluate, evaluation_to_json
from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode
from core.inference_workload import inference_workload_to_dict, load_inference_preset
from core.model import Link
from core.operations import (AddService, ChangeService, RemoveService, SetOutOfService,
                             SetWorkloadPartition)
from core.partitions import main_gpus
from core.project import design_from_dict, design_to_dict, load_project, save_project
from core.report import render_report
from core.services import Partition, Service
from core.workload import load_preset, with_parallelism
from designer.cli import main

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"
R1 = load_inference_preset("deepseek-r1-serve")      # EP 8 x DP 8: 64 GPUs, 671B at FP8
LLAMA = load_inference_preset("llama31-70b-serve")   # TP 8: 8 GPUs


@pytest.fixture
def train_and_serve(catalog):
    """1,024 DGX H100 (su: 4 SUs of 32) training, 8 GB200 NVL72 racks (serve) serving R1."""
    return load_project(EXAMPLES / "train-and-serve.json", catalog)


def _codes(ev):
    return {w.code: w for w in ev.warnings}


# --- the GPUs and the fabric of each partition ---------------------------------------------------
def test_each_partition_holds_its_blocks_gpus_and_sees_its_own_hardware(train_and_serve, catalog):
    ev = evaluate(train_and_serve, catalog)
    training, serve = ev.partitions.main, ev.partitions.services[0]
    assert training.gpus == 4 * 32 * 8 and serve.gpus == 8 * 72  # by hand: 1,024 and 576
    assert ev.counts.gpus == 1024 + 576
    # the NVL72 racks serve as GB200s in 72-GPU NVLink domains at 900 GB/s, not as the H100s
    assert serve.fabric.accelerator.id == "GB200" and serve.fabric.scale_up_domain_gpus == 72
    assert serve.fabric.scale_up.per_gpu_gbyte_s == 900
    assert training.fabric.accelerator.id == "H100-SXM5-80GB" and training.fabric.scale_up_domain_gpus == 8
    # R1 at FP8 over EP 8: ~17 GB of shared weights + 654 GB of experts / 8 = ~99 GB per GPU,
    # which the GB200's HBM holds; the service runs and meets its SLOs
    reasoning = ev.services[0]
    assert reasoning.inference.runs and reasoning.inference.meets_slo
    assert 95 < reasoning.inference.weights_gb_per_gpu < 100
    assert ev.performance.job_gpus == 1024 and ev.performance.runs


def test_the_same_service_on_the_h100_blocks_does_not_fit(train_and_serve, catalog):
    train_and_serve.services = (Service("reasoning", Partition(blocks=("su",)), R1),)
    train_and_serve.workload_partition = Partition("training", blocks=("serve",))
    ev = evaluate(train_and_serve, catalog)
    service = ev.services[0]
    assert service.partition.fabric.accelerator.id == "H100-SXM5-80GB"
    assert not service.inference.runs  # ~99 GB of weights per GPU on an 80 GB H100
    assert "DOES_NOT_FIT_MEMORY" in {d.code for d in service.inference.cannot_run}
    assert "partition reasoning" in _codes(ev)["DOES_NOT_FIT_MEMORY"].message


def test_a_partition_sees_the_fabric_of_its_blocks_alone_even_oversubscribed(catalog):
    # A 2:1 oversubscribed H100 fat tree with an NVL72 SU grafted on the same spines: the H100
    # partition keeps its 2:1 (25.6 GB/s per GPU at the spine, as the tree alone has), where
    # draining the NVL72 racks instead would credit it with the idle leaves' uplinks (50 GB/s).
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700", oversubscription=2), catalog)
    alone = evaluate(design, catalog).topology.fabric
    nvl72 = generate_supernode(SupernodeOptions("GB200-NVL72", 8), catalog).root.children["su"]
    design.root.children["serve"] = dataclasses.replace(nvl72, id="serve")
    spine = design.root.children["spine"]
    design.root.children["spine"] = dataclasses.replace(spine, count=spine.count + 9)
    design.root.links.append(Link("serve-up", "serve/leaf", "spine", "scale-out", 400.0, 576, 30.0))
    design.workload_partition = Partition("training", blocks=("su", "su-2"))
    ev = evaluate(design, catalog)
    assert ev.partitions.main.fabric == alone
    assert ev.partitions.main.fabric.levels[-1].per_gpu_gbyte_s == pytest.approx(25.63, abs=0.01)
    drained = design.snapshot()
    drained.workload_partition = None
    drained.apply(SetOutOfService("serve/nodes", 0, 8))
    assert evaluate(drained, catalog).topology.fabric.levels[-1].per_gpu_gbyte_s == 50.0


def test_gpu_count_partitions_come_from_the_gpus_outside_the_block_partitions(train_and_serve, catalog):
    train_and_serve.workload_partition = None
    train_and_serve.services += (Service("chat", Partition(gpus=64), LLAMA),)
    ev = evaluate(train_and_serve, catalog)
    main_view, reasoning, chat = ev.partitions.main, *ev.partitions.services
    assert (reasoning.gpus, chat.gpus) == (576, 64)
    assert main_view.gpus == 1024 - 64 and main_view.partition is None  # what the services leave
    assert chat.fabric.accelerator.id == "H100-SXM5-80GB"  # the pool is the H100 SUs
    assert main_gpus(train_and_serve, catalog) == 960
    # the preset's 1,024-GPU layout no longer fits: the error names the partition
    assert not ev.performance.runs
    assert "partition main (the 960 GPUs the services leave)" in _codes(ev)["PARALLELISM_EXCEEDS_GPUS"].message


def test_a_training_job_on_a_1024_gpu_partition(catalog):
    design = load_project(EXAMPLES / "islands-4x2048-h100.json", catalog)  # 8,192 H100
    design.workload = dataclasses.replace(load_preset("llama3-70b"), parallelism="auto")
    design.workload_partition = Partition("training", gpus=1024)
    ev = evaluate(design, catalog)
    assert ev.partitions.main.fabric.gpus == 1024
    assert ev.performance.runs and ev.performance.job_gpus <= 1024
    # a layout that needs 2,048 GPUs does not fit the partition, though the design has 8,192
    design.workload = with_parallelism(load_preset("llama3-70b"), tp=8, pp=4, dp=64, global_batch=1024)
    ev = evaluate(design, catalog)
    assert not ev.performance.runs and ev.performance.mfu is None
    assert "partition training (1,024 GPUs)" in _codes(ev)["PARALLELISM_EXCEEDS_GPUS"].message
    assert evaluation_to_json(ev)["performance"]["runs"] is False


# --- warnings --------------------------------------------------------------------------------------
def test_overlapping_partitions_are_named(train_and_serve, catalog):
    train_and_serve.services += (Service("batch", Partition(blocks=("su/nodes",)), LLAMA),
                                 Service("shadow", Partition(blocks=("serve",)), LLAMA))
    warning = _codes(evaluate(train_and_serve, catalog))["PARTITIONS_OVERLAP"]
    assert warning.severity == "warning"
    assert "training's su/nodes" not in warning.message
    assert "batch's su/nodes is inside training's su" in warning.message
    assert "partitions reasoning and shadow share GPUs (both hold serve)" in warning.message


def test_gpu_counts_beyond_the_design_are_named(catalog):
    design = load_project(EXAMPLES / "dgx-h100-superpod-4su.json", catalog)  # 1,024 GPUs
    design.workload_partition = Partition("training", gpus=768)
    design.services = (Service("chat", Partition(gpus=512), LLAMA),
                       Service("huge", Partition(gpus=4096), LLAMA))
    ev = evaluate(design, catalog)
    codes = _codes(ev)
    assert "partitions training, chat and huge ask 5,376 GPUs together; the design has 1,024" \
        in codes["PARTITIONS_EXCEED_DESIGN"].message
    assert codes["PARTITION_DOES_NOT_FIT"].severity == "error"
    assert "partition huge: it asks 4,096 GPUs; the design has 1,024" in codes["PARTITION_DOES_NOT_FIT"].message
    huge = ev.services[1]
    assert not huge.inference.runs and huge.inference.decode_tokens_per_s_per_gpu is None
    assert ev.services[0].inference.runs  # each partition that fits is evaluated as if alone


def test_an_unknown_block_leaves_its_service_unevaluated(train_and_serve, catalog):
    train_and_serve.services = (Service("reasoning", Partition(blocks=("serve", "gone")), R1),)
    ev = evaluate(train_and_serve, catalog)
    error = _codes(ev)["PARTITION_UNKNOWN_BLOCK"]
    assert error.severity == "error" and "partition reasoning: no block or component at 'gone'" in error.message
    section = evaluation_to_json(ev)["services"][0]["inference"]
    assert section["runs"] is False and section["ttft_ms"] is None
    assert ev.performance.runs  # the training partition is not affected


# --- power and cost shares ------------------------------------------------------------------------
def test_partitions_share_the_power_and_cost_of_the_design(train_and_serve, catalog):
    ev = evaluate(train_and_serve, catalog)
    views = ev.partitions.all
    assert sum(v.it_kw for v in views) == pytest.approx(ev.power.it_kw)
    assert sum(v.facility_kw for v in views) == pytest.approx(ev.power.facility_kw)
    # GPU-hours weighted, the partitions cost what the design does
    assert sum(v.usd_per_gpu_hour * v.gpus for v in views) / ev.counts.gpus == pytest.approx(ev.cost.usd_per_gpu_hour)
    # a GB200 NVL72 GPU-hour costs more than a DGX H100 one (3.0 M$ per 72 GPUs vs 270 k$ per 8)
    assert views[1].usd_per_gpu_hour > views[0].usd_per_gpu_hour
    # tokens/s per MW are the partition's: served output tokens/s per GPU x its 576 GPUs (8 copies
    # of the 72-GPU layout fill it) / its facility MW
    inf = ev.services[0].inference
    assert inf.serving_gpus_in_design == 576
    assert inf.tokens_per_s_per_mw == pytest.approx(inf.output_tokens_per_s_per_gpu * 576 / (views[1].facility_kw / 1000))
    # the training run is priced at its partition's rate
    run = ev.performance
    assert ev.cost.training_run_usd == pytest.approx(views[0].usd_per_gpu_hour * run.job_gpus * run.training_days * 24)


def test_a_partition_holding_the_whole_design_sees_the_design(catalog):
    design = load_project(EXAMPLES / "dgx-h100-superpod-4su.json", catalog)
    plain = evaluate(design, catalog)
    design.workload_partition = Partition(blocks=("su",))
    ev = evaluate(design, catalog)
    assert ev.partitions.main.fabric == plain.topology.fabric
    assert ev.performance.mfu == plain.performance.mfu
    assert ev.reliability.ettr == plain.reliability.ettr
    assert ev.partitions.main.it_kw == pytest.approx(plain.power.it_kw)
    assert ev.partitions.main.usd_per_gpu_hour == pytest.approx(plain.cost.usd_per_gpu_hour)
    assert ev.cost.training_run_usd == pytest.approx(plain.cost.training_run_usd)


def test_without_partitions_nothing_changes(catalog):
    design = load_project(EXAMPLES / "dgx-h100-superpod-4su.json", catalog)
    out = evaluation_to_json(evaluate(design, catalog))
    assert out["partitions"] == [] and out["services"] == []


# --- a degraded design ------------------------------------------------------------------------------
def test_partitions_follow_their_blocks_into_a_degraded_design(train_and_serve, catalog):
    train_and_serve.apply(SetOutOfService("serve/nodes", 1, 0))  # one NVL72 rack failed
    ev = evaluate(train_and_serve, catalog)
    assert ev.partitions.services[0].gpus == 7 * 72
    assert ev.services[0].inference.runs and ev.failure is not None
    assert ev.partitions.main.gpus == 1024


# --- files -------------------------------------------------------------------------------------------
def test_train_and_serve_survives_save_and_load(train_and_serve, tmp_path, catalog):
    path = tmp_path / "p.json"
    save_project(train_and_serve, path)
    again = load_project(path, catalog)
    assert again.content_equal(train_and_serve)
    assert again.services[0].name == "reasoning" and again.workload_partition.blocks == ("su",)
    raw = json.loads(path.read_text())
    assert raw["workload_partition"] == {"name": "training", "blocks": ["su"]}
    assert raw["services"][0]["partition"] == {"blocks": ["serve"]}


def test_old_files_load_as_before_and_save_without_the_new_keys(catalog):
    for path in EXAMPLES.glob("*.json"):
        if path.stem == "train-and-serve":
            continue
        design = load_project(path, catalog)
        assert design.services == () and design.workload_partition is None
        assert design_to_dict(design) == json.loads(path.read_text())  # saved as it was read


_ids = st.text("abcdefgh-_.0123456789", min_size=1, max_size=6)
_paths = st.lists(_ids, min_size=1, max_size=3).map("/".join)
_partitions = st.one_of(
    st.builds(Partition, st.one_of(st.just(""), _ids), st.lists(_paths, min_size=1, max_size=5, unique=True).map(tuple)),
    st.builds(lambda name, gpus: Partition(name, gpus=gpus), st.one_of(st.just(""), _ids),
              st.integers(1, 10_000_000)))


@given(main=st.one_of(st.none(), _partitions), specs=st.lists(_partitions, max_size=4))
def test_partitions_round_trip_through_the_project_file(main, specs):
    services = tuple(Service(f"s{i}", dataclasses.replace(p, name=f"p{i}" if p.name else ""), LLAMA)
                     for i, p in enumerate(specs))
    raw = design_to_dict(load_project(EXAMPLES / "cloudmatrix384.json"))
    design = design_from_dict(raw)
    if main is not None:
        main = dataclasses.replace(main, name=main.name and "main-" + main.name)
    design.workload_partition = main
    design.services = services
    again = design_from_dict(json.loads(json.dumps(design_to_dict(design))))
    assert again.workload_partition == main and again.services == services
    assert again.content_equal(design)


@pytest.mark.parametrize("change,message", [
    ({"services": [{"name": "a", "partition": {"blocks": ["x", ""]}, "workload": "W"}]},
     "$.services[0].partition.blocks[1]: invalid id ''"),
    ({"services": [{"name": "a", "partition": {"gpus": 8, "blocks": ["x"]}, "workload": "W"}]},
     "$.services[0].partition: give blocks (design paths) or gpus (a count), not both"),
    ({"services": [{"name": "a", "partition": {"gpus": 8}, "workload": "W"},
                   {"name": "a", "partition": {"gpus": 8}, "workload": "W"}]},
     "$.services[1].name: 'a' is already a service's name"),
    ({"workload_partition": {"name": "a", "gpus": 8},
      "services": [{"name": "a", "partition": {"gpus": 8}, "workload": "W"}]},
     "$.services[0].name: 'a' already names another partition"),
    ({"services": [{"name": "a", "partition": {"gpus": 8}, "workload": "T"}]},
     "$.services[0].workload.kind: a service serves an inference workload"),
    ({"workload_partition": {"gpus": 0}}, "$.workload_partition.gpus: must be at least 1, got 0"),
    ({"workload_partition": {"blocks": ["su", "su"]}}, "$.workload_partition.blocks[1]: 'su' is listed twice"),
    ({"workload_partition": {"gpu": 8}}, "$.workload_partition.gpu: unknown key"),
])
def test_bad_partitions_in_a_file_are_one_located_line(change, message, catalog):
    raw = design_to_dict(load_project(EXAMPLES / "dgx-h100-superpod-4su.json", catalog))
    text = json.dumps(change).replace('"W"', json.dumps(inference_workload_to_dict(LLAMA)))
    text = text.replace('"T"', json.dumps(raw["workload"]))
    with pytest.raises(ProjectFileError) as info:
        design_from_dict({**raw, **json.loads(text)})
    assert str(info.value).startswith(message) and "\n" not in str(info.value)


# --- the model and its undoable operations ------------------------------------------------------------
_operations = st.one_of(
    st.builds(lambda name, p, at: AddService(Service(name, p, LLAMA), at),
              st.sampled_from(["chat", "batch", "reasoning"]), _partitions,
              st.one_of(st.none(), st.integers(0, 3))),
    st.builds(RemoveService, st.sampled_from(["chat", "batch", "reasoning"])),
    st.builds(lambda old, new, p: ChangeService(old, Service(new, p, LLAMA)),
              st.sampled_from(["chat", "reasoning"]), st.sampled_from(["chat", "x"]), _partitions),
    st.builds(SetWorkloadPartition, st.one_of(st.none(), _partitions)),
)


@given(st.lists(_operations, max_size=8))
def test_any_sequence_of_service_edits_undoes_to_the_start(operations):
    design = load_project(EXAMPLES / "train-and-serve.json")
    start = design_to_dict(design)
    undo = []
    for operation in operations:
        before = design_to_dict(design)
        try:
            undo.append(design.apply(operation))
        except DesignError:
            assert design_to_dict(design) == before  # a refused edit changes nothing
    for inverse in reversed(undo):
        design.apply(inverse)
    assert design_to_dict(design) == start


def test_the_model_refuses_what_a_file_may_not_hold(train_and_serve):
    with pytest.raises(DesignError, match="'reasoning' is already a service's name"):
        train_and_serve.apply(AddService(Service("reasoning", Partition(gpus=8), LLAMA)))
    with pytest.raises(DesignError, match="already names another partition"):
        train_and_serve.apply(SetWorkloadPartition(Partition("reasoning", gpus=8)))
    with pytest.raises(DesignError, match="a service serves an inference workload"):
        Service("x", Partition(gpus=8), load_preset("llama3-70b"))
    with pytest.raises(DesignError, match="not both"):
        Partition(blocks=("su",), gpus=8)
    with pytest.raises(DesignError, match="no service 'nope'"):
        train_and_serve.apply(RemoveService("nope"))
    assert [s.name for s in train_and_serve.services] == ["reasoning"]  # a refused edit changes nothing


def test_a_snapshot_keeps_the_services_and_a_later_edit_does_not_reach_it(train_and_serve):
    snap = train_and_serve.snapshot()
    train_and_serve.apply(RemoveService("reasoning"))
    assert [s.name for s in snap.services] == ["reasoning"] and snap.workload_partition.name == "training"


# --- reports, compare, command line ---------------------------------------------------------------------
def test_reports_have_a_section_per_service(train_and_serve, catalog):
    ev = evaluate(train_and_serve, catalog)
    md = render_report(ev, "md")
    assert "## Partitions" in md and "## Service reasoning" in md
    assert "| Partition | training: blocks su: 1,024 GPUs |" in md
    csv = render_report(ev, "csv")
    assert "services.reasoning.tpot_ms" in csv and "partitions.reasoning" in csv
    assert "Service reasoning" in render_report(ev, "html")


def test_compare_matches_services_by_name(train_and_serve, catalog):
    one = evaluation_to_json(evaluate(train_and_serve, catalog))
    bigger_batch = dataclasses.replace(R1, deployment=dataclasses.replace(
        R1.deployment, decode=dataclasses.replace(R1.deployment.decode, batch=128),
        prefill=dataclasses.replace(R1.deployment.prefill, batch=128)))
    train_and_serve.services = (Service("reasoning", Partition(blocks=("serve",)), bigger_batch),)
    two = evaluation_to_json(evaluate(train_and_serve, catalog))
    plain = evaluation_to_json(evaluate(load_project(EXAMPLES / "dgx-h100-superpod-4su.json", catalog), catalog))
    comparison = compare_evaluations([one, two, plain], ["a", "b", "c"])
    row = {m.path: values for m, values in zip(comparison.metrics, comparison.values)}
    a, b, c = row["services.reasoning.decode_tokens_per_s_per_gpu"]
    assert b > a and c is None  # batch 128 decodes more per GPU; c has no such service: n/a
    assert any(m.title == "Service reasoning" for m in comparison.metrics)


def test_two_commands_build_and_evaluate_a_train_and_serve_project(tmp_path, capsys):
    path = tmp_path / "p.json"
    assert main(["generate", "fat-tree", "--gpus", "2048", "--server", "DGX-H100", "--switch", "QM9700",
                 "--workload", "llama3-70b", "--service", "chat=llama31-70b-serve@512",
                 "-o", str(path)]) == 0
    assert "fitted to 1,536 GPUs" in capsys.readouterr().err  # what the service leaves
    assert main(["evaluate", str(path), "--service", "reasoning=deepseek-r1-serve@64"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in out["services"]] == ["chat", "reasoning"]
    assert [p["gpus"] for p in out["partitions"]] == [2048 - 512 - 64, 512, 64]
    assert out["services"][0]["inference"]["runs"] is True


@pytest.mark.parametrize("args,message", [
    (["--service", "chat"], "expected NAME=WORKLOAD@GPUS"),
    (["--service", "chat=llama3-70b@8"], "llama3-70b is a training workload"),
    (["--service", "chat=llama31-70b-serve@many"], "'many' is not a GPU count"),
    (["--service", "chat=llama31-70b-serve@blocks:a//b"], "partition.blocks[0]: invalid id ''"),
    (["--workload-partition", "t=0"], "partition.gpus: must be at least 1"),
])
def test_service_options_fail_in_one_line(args, message, capsys):
    assert main(["evaluate", str(EXAMPLES / "dgx-h100-superpod-4su.json"), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_an_auto_service_is_searched_on_its_partition_like_a_main_workload(train_and_serve, catalog):
    """A service asking "deployment": "auto" gets the search on its own partition's GPUs, the
    chosen deployment, the runners-up and the what-ifs, in the JSON and the report, exactly as
    the same workload gets them as the main workload of that partition alone."""
    auto = dataclasses.replace(R1, deployment="auto")
    train_and_serve.services = (Service("reasoning", Partition(blocks=("serve",)), auto),)
    ev = evaluate(train_and_serve, catalog)
    service = ev.services[0]
    assert service.search is not None and service.bottleneck is not None
    assert service.workload.auto and not service.inference.workload.auto
    alone = evaluate(load_project(EXAMPLES / "gb200-nvl72-su.json", catalog), catalog, auto)
    assert service.inference.workload.deployment == alone.inference.workload.deployment
    assert service.inference.output_tokens_per_s_per_gpu == pytest.approx(alone.inference.output_tokens_per_s_per_gpu)
    section = evaluation_to_json(ev)["services"][0]
    assert section["workload"]["deployment"] == "auto"
    assert section["inference"]["deployment"] == inference_workload_to_dict(service.inference.workload)["deployment"]
    assert len(section["inference"]["search"]["candidates"]) == len(service.search.candidates)
    assert section["bottleneck"]["kind"] == "inference"
    md = render_report(ev, "md")
    assert "Auto deployment (chosen)" in md.split("## Service reasoning")[1]
