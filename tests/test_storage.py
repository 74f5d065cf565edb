"""Storage by I/O class, the storage fabric generator and multi-level checkpoints (issue 14).

What a user relies on: the storage section says which path each kind of I/O takes and what
limits it; a checkpoint is never written faster than the job's own links and its share of the
storage path allow, and never gets faster when the cluster grows around an unchanged job; a
>3,000-node storage system with >10 TB/s can be generated; a memory tier shortens the
checkpoint interval and raises ETTR by the amounts Daly's model gives.
"""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.analysis.model_stats import parameter_count
from core.analysis.storage import StorageAssumptions
from core.assumptions import Assumptions
from core.errors import GeneratorError
from core.evaluate import evaluate, evaluation_to_json
from core.generators.fat_tree import FatTreeOptions, generate_fat_tree
from core.project import load_project
from core.workload import workload_from_dict
from designer.cli import main

ROOT_EXAMPLE = "resources/examples/dgx-h100-superpod-4su.json"


def _job(gpus: int, tp: int = 8, pp: int = 4) -> object:
    """Llama 3 70B on ``gpus`` GPUs (a ~988 GB checkpoint at 14 B/param)."""
    with open("resources/workloads/llama3-70b.json") as f:
        raw = json.load(f)
    dp = gpus // (tp * pp)
    raw["parallelism"].update(tp=tp, pp=pp, dp=dp, global_batch=dp * 4)
    if pp == 1:
        raw["parallelism"]["virtual_stages"] = 1
    return workload_from_dict(raw)


def _design(catalog, gpus: int, storage_nodes: int, **options):
    return generate_fat_tree(FatTreeOptions(gpus, "DGX-H100", "QM9700", storage="AI400X2",
                                            storage_nodes=storage_nodes, **options), catalog)


# --------------------------------------------------------------------------- job's share


def test_checkpoint_does_not_speed_up_when_the_cluster_grows_around_the_job(catalog):
    # The case: a 1,024-GPU job's 988 GB checkpoint on the same 8 AI400X2, in a
    # 2,048-GPU and a 10,240-GPU cluster. It used to be written twice as fast in the larger one.
    job = _job(1024)
    small = evaluate(_design(catalog, 2048, 8), catalog, job)
    large = evaluate(_design(catalog, 10240, 8), catalog, job)
    assert small.reliability.checkpoint_size_gb == pytest.approx(988, abs=1)
    assert large.reliability.checkpoint_write_s >= small.reliability.checkpoint_write_s
    assert large.reliability.checkpoint_restore_s >= small.reliability.checkpoint_restore_s
    # the job's fair share of the 8 appliances: half of 8 x 65 GB/s, then a tenth
    assert small.storage.classes["checkpoint_write"].job_gbyte_s == pytest.approx(8 * 65 / 2)
    assert large.storage.classes["checkpoint_write"].job_gbyte_s == pytest.approx(8 * 65 / 10)


@settings(max_examples=15)
@given(job_nodes=st.integers(1, 64), extra_nodes=st.integers(0, 192),
       storage_nodes=st.integers(1, 40), contention=st.sampled_from([0.0, 0.5, 1.0]))
def test_checkpoint_is_never_faster_than_the_jobs_links_or_storage_allow(
        catalog, job_nodes, extra_nodes, storage_nodes, contention):
    job_gpus = job_nodes * 8
    design = _design(catalog, job_gpus + extra_nodes * 8, storage_nodes)
    design = dataclasses.replace(design, assumptions=Assumptions(
        storage=StorageAssumptions(contention=contention)))
    job = _job(job_gpus, tp=8, pp=1)
    ev = evaluate(design, catalog, job)
    r = ev.reliability
    size_gb = parameter_count(job.model).total * 14 / 1e9
    efficiency = 0.8
    own_links_gbyte_s = job_nodes * 2 * 200 / 8          # 2 x 200G storage ports per DGX H100
    storage_gbyte_s = storage_nodes * 65.0                # every AI400X2's rated write
    fastest_s = size_gb / (min(own_links_gbyte_s, storage_gbyte_s) * efficiency)
    assert r.checkpoint_write_s >= fastest_s * (1 - 1e-9)
    # and the same job in a larger cluster around it is never faster
    bigger = _design(catalog, job_gpus + (extra_nodes + 32) * 8, storage_nodes)
    bigger = dataclasses.replace(bigger, assumptions=design.assumptions)
    assert evaluate(bigger, catalog, job).reliability.checkpoint_write_s >= r.checkpoint_write_s * (1 - 1e-9)


def test_a_job_alone_on_the_cluster_is_limited_by_its_own_links(catalog):
    # 4 DGX H100 (1.6 Tb/s of storage ports, 200 GB/s) against 40 AI400X2 (2,600 GB/s write)
    job = _job(32, tp=8, pp=1)
    ev = evaluate(_design(catalog, 32, 40), catalog, job)
    write = ev.storage.classes["checkpoint_write"]
    assert write.bottleneck == "job's own links"
    assert write.job_gbyte_s == pytest.approx(4 * 2 * 200 / 8)
    assert write.per_gpu_gbyte_s == pytest.approx(200 / 32)
    assert ev.reliability.checkpoint_write_s == pytest.approx(
        ev.reliability.checkpoint_size_gb / (200 * 0.8))


# --------------------------------------------------------------------------- per-class paths


def test_io_classes_on_the_dgx_h100_superpod_with_ai400x2(catalog):
    design = load_project(ROOT_EXAMPLE)
    ev = evaluate(design, catalog)
    s = ev.storage
    assert s.fabric == "separate" and s.storage_nodes == 4 and s.job_share == 1.0
    for io_class in ("data_loading", "checkpoint_write", "checkpoint_restore",
                     "inference_small_read"):
        entry = s.classes[io_class]
        assert entry.path.startswith("DGX-H100 (2 x 200G storage NIC ports per node) -> "
                                     "storage-leaf switches -> storage-spine switches -> 4 x AI400X2")
    # 4 appliances: 4 x 90 GB/s read, 4 x 65 GB/s write, far below 127 DGX x 50 GB/s of ports
    assert s.classes["data_loading"].bottleneck == "AI400X2 throughput"
    assert s.classes["data_loading"].job_gbyte_s == pytest.approx(360)
    assert s.classes["checkpoint_write"].job_gbyte_s == pytest.approx(260)
    assert s.classes["checkpoint_restore"].job_gbyte_s == pytest.approx(360)
    assert s.classes["data_loading"].per_gpu_gbyte_s == pytest.approx(360 / ev.reliability.job_gpus)
    # small random reads are IOPS-bound: 4 x 90 GB/s x 33,000 IOPS per GB/s x 4 KiB
    small = s.classes["inference_small_read"]
    assert small.bottleneck == "AI400X2 random-read IOPS"
    assert small.job_gbyte_s == pytest.approx(4 * 90 * 33_000 * 4096 / 1e9)
    # latency: 2 NICs x 0.5 us + leaf, spine, leaf (QM9700 130 ns) + cables + device service
    network_us = 1.0 + 3 * 0.130
    assert s.classes["checkpoint_write"].latency_us > network_us + 50.0
    assert s.classes["checkpoint_write"].latency_us < network_us + 50.0 + 1.0
    assert small.latency_us > s.classes["checkpoint_write"].latency_us  # a read waits on flash


def test_evaluation_json_storage_section_and_restore_time(catalog):
    data = evaluation_to_json(evaluate(load_project(ROOT_EXAMPLE), catalog))
    assert set(data["storage"]) == {"data_loading", "checkpoint_write", "checkpoint_restore",
                                    "inference_small_read"}
    for entry in data["storage"].values():
        assert {"path", "bottleneck", "job_gbyte_s", "per_gpu_gbyte_s", "latency_us"} <= set(entry)
    r = data["reliability"]
    assert r["checkpoint_restore_s"] == pytest.approx(r["checkpoint_size_gb"] / (360 * 0.8))


def test_no_storage_gives_nulls_not_numbers(catalog):
    design = generate_fat_tree(FatTreeOptions(64, "DGX-H100", "QM9700"), catalog)
    data = evaluation_to_json(evaluate(design, catalog, _job(64, pp=1)))
    for entry in data["storage"].values():
        assert entry["job_gbyte_s"] is None and entry["bottleneck"] is None
        assert entry["path"] == "no storage in the design"
    assert data["reliability"]["checkpoint_restore_s"] is None


# --------------------------------------------------------------------------- generator


def test_generate_3000_node_storage_over_10_tbyte_s_on_its_own_fabric(catalog, tmp_path, capsys):
    # Article 003: a global file system of >3,000 nodes delivering >10 TB/s. On QM9700 at
    # 200G (radix 128) its 25,600 + 4,096 ports need a third tier of the storage switch.
    path = tmp_path / "big.json"
    assert main(["generate", "fat-tree", "--gpus", "16384", "--server", "DGX-H100",
                 "--switch", "QM9700", "--storage", "AI400X2", "--storage-nodes", "3200",
                 "--storage-switch", "QM9700", "-o", str(path)]) == 0
    assert main(["evaluate", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    tiers = data["counts"]["switches_by_tier"]
    assert data["counts"]["storage_nodes"] == 3200
    assert {"storage-leaf", "storage-spine", "storage-core"} <= set(tiers)
    for io_class in ("data_loading", "checkpoint_write"):
        assert data["storage"][io_class]["job_gbyte_s"] > 10_000
    assert "storage-core" in data["storage"]["data_loading"]["path"]


def test_storage_switch_is_its_own_type_and_dpus_carry_storage(catalog):
    design = generate_fat_tree(FatTreeOptions(256, "DGX-B200", "QM9700", storage="AI400X2",
                                              storage_nodes=4, storage_switch="SN5600"), catalog)
    fabric = design.root.children["storage-fabric"]
    assert fabric.children["leaf"].catalog_id == "SN5600"
    # each DGX B200 attaches with its 2 BlueField-3 x 2 x 200G ports
    links = [l for l in design.root.links if l.b == "storage-fabric/leaf"]
    assert sum(l.count for l in links) == 32 * 4
    ev = evaluate(design, catalog)
    assert "BlueField-3 DPU ports" in ev.storage.classes["checkpoint_write"].path


def test_two_tiers_asked_for_a_fabric_that_needs_three_says_so(catalog):
    with pytest.raises(GeneratorError, match="storage fabric .* use 3 tiers"):
        from core.generators.storage import add_storage
        from core.model import Block
        add_storage(Block("root", "r"), catalog, "AI400X2", 3200, catalog.get("QM9700"), 2048,
                    catalog.get("DGX-H100"), tiers=2)


# --------------------------------------------------------------------------- multi-level


def _daly_interval(d: float, m: float) -> float:
    x = d / (2 * m)
    return math.sqrt(2 * d * m) * (1 + math.sqrt(x) / 3 + x / 9) - d


def _daly_efficiency(t: float, d: float, r: float, m: float) -> float:
    return t / (m * math.exp(r / m) * math.expm1((t + d) / m))


def test_memory_tier_shortens_the_interval_and_raises_ettr(catalog):
    # Article 003: a host-memory tier plus asynchronous flush instead of a blocking save.
    design = _design(catalog, 1024, 4)
    job = _job(1024)
    sync = dataclasses.replace(design, assumptions=Assumptions(
        reliability=dataclasses.replace(Assumptions().reliability, checkpoint_mode="sync")))
    # host memory at 200 GB/s per node, 1 TB, one copy on a peer node (it survives a failure)
    tiers = StorageAssumptions(checkpoint_tiers={"host-memory": [200.0, 1000.0, 1]})
    tiered = dataclasses.replace(design, assumptions=Assumptions(
        reliability=sync.assumptions.reliability, storage=tiers))
    before = evaluate(sync, catalog, job).reliability
    after = evaluate(tiered, catalog, job).reliability

    size_b = before.checkpoint_size_gb * 1e9
    m = before.mtbi_hours * 60
    r = 2.0 + 5.0                                          # detection + restart
    write_s = size_b / (4 * 65 * 0.8 * 1e9)                # 4 AI400X2, 80% of rated write
    # sync single tier: the job blocks for the whole write
    assert before.checkpoint_blocking_s == pytest.approx(write_s)
    tau_sync = _daly_interval(write_s / 60, m)
    assert before.checkpoint_interval_min == pytest.approx(tau_sync)
    assert before.ettr == pytest.approx(_daly_efficiency(tau_sync, write_s / 60, r, m))
    # memory tier, sync mode: blocks until persisted = snapshot + flush, nothing at risk after
    snapshot_s = size_b / (128 * 200e9)                    # 128 nodes x 200 GB/s into memory
    assert after.checkpoint_blocking_s == pytest.approx(snapshot_s + write_s)

    asynchronous = dataclasses.replace(tiered, assumptions=Assumptions(storage=tiers))
    fast = evaluate(asynchronous, catalog, job).reliability
    assert fast.checkpoint_blocking_s == pytest.approx(snapshot_s)
    assert fast.checkpoint_write_s == pytest.approx(snapshot_s + write_s)  # until persisted
    assert fast.checkpoint_recoverable_after_s == pytest.approx(snapshot_s)  # peer copy survives
    tau = max(_daly_interval(snapshot_s / 60, m), (snapshot_s + write_s) / 60)
    assert fast.checkpoint_interval_min == pytest.approx(tau)
    assert fast.ettr == pytest.approx(_daly_efficiency(tau, snapshot_s / 60, r + snapshot_s / 60, m))
    assert fast.checkpoint_interval_min < before.checkpoint_interval_min
    assert fast.ettr > before.ettr
    assert fast.checkpoint_restore_from == "host-memory"
    assert fast.checkpoint_restore_s == pytest.approx(snapshot_s)


def test_a_memory_tier_lost_with_the_node_counts_work_from_the_persisted_checkpoint(catalog):
    design = _design(catalog, 1024, 4)
    job = _job(1024)

    def with_tier(peer_copies: int):
        tiers = StorageAssumptions(checkpoint_tiers={"host-memory": [200.0, 1000.0, peer_copies]})
        return evaluate(dataclasses.replace(design, assumptions=Assumptions(storage=tiers)),
                        catalog, job).reliability

    kept, lost = with_tier(1), with_tier(0)
    assert lost.checkpoint_recoverable_after_s == pytest.approx(lost.checkpoint_write_s)
    assert lost.restart_total_min == pytest.approx(7.0 + lost.checkpoint_write_s / 60)
    assert lost.ettr < kept.ettr
    assert lost.checkpoint_restore_from == "storage"


def test_a_tier_too_small_for_the_shard_is_skipped_with_a_warning(catalog):
    design = _design(catalog, 1024, 4)
    # 988 GB over 128 nodes is 7.7 GB per node, twice with the peer copy: 10 GB is too small
    tiers = StorageAssumptions(checkpoint_tiers={"host-memory": [200.0, 10.0, 1]})
    ev = evaluate(dataclasses.replace(design, assumptions=Assumptions(storage=tiers)), catalog,
                  _job(1024))
    plain = evaluate(design, catalog, _job(1024))
    assert "CHECKPOINT_TIER_TOO_SMALL" in {w.code for w in ev.warnings}
    assert ev.reliability.ettr == plain.reliability.ettr


def test_converged_storage_on_the_compute_fabric(catalog):
    # Storage nodes cabled to the compute leaf: their I/O rides the servers' compute NICs.
    from core.model import Block, Design, Link, Node

    root = Block("root", "converged")
    root.children["nodes"] = Node("nodes", "DGX-H100", 4)
    root.children["leaf"] = Node("leaf", "QM9700", 1, tier="leaf")
    root.children["store"] = Node("store", "AI400X2", 2)
    root.links.append(Link("c", "nodes", "leaf", "scale-out", 400.0, 32, 10.0))
    root.links.append(Link("s", "store", "leaf", "storage", 200.0, 4, 10.0))
    s = evaluate(Design("converged", root), catalog).storage
    assert s.fabric == "converged"
    read = s.classes["data_loading"]
    assert read.path.startswith("DGX-H100 (8 x 400G ConnectX-7 compute NICs per node) -> leaf switches")
    # 4 x 200G storage links (100 GB/s) limit 2 x 90 GB/s of appliances
    assert read.bottleneck == "storage links" and read.job_gbyte_s == pytest.approx(100)
    # one leaf: compute NIC, leaf, storage NIC
    assert read.latency_us == pytest.approx(1.0 + 0.130 + 2 * 10 * 5 / 1000 + 100.0)


def test_checkpoint_tiers_in_a_project_file_are_checked(catalog):
    from core.assumptions import assumptions_from_dict
    from core.errors import DesignError

    loaded = assumptions_from_dict({"storage": {"checkpoint_tiers": {
        "host-memory": [200, 1024, 1], "local-nvme": [40, 15000, 0]}}})
    assert [t.name for t in loaded.storage.checkpoint_tier_list()] == ["host-memory", "local-nvme"]
    with pytest.raises(DesignError, match=r"checkpoint_tiers\.host-memory: expected"):
        assumptions_from_dict({"storage": {"checkpoint_tiers": {"host-memory": [200, 1024]}}})
    with pytest.raises(DesignError, match=r"host-memory\[1\]: -1 is below the minimum"):
        assumptions_from_dict({"storage": {"checkpoint_tiers": {"host-memory": [200, -1, 0]}}})


def test_two_tiers_flush_as_a_pipeline_at_the_slowest_stage(catalog):
    # memory (not replicated) -> local NVMe (not replicated) -> storage: nothing survives a
    # node failure before the storage has it; the flush runs at the slower of NVMe and storage
    design = _design(catalog, 1024, 4)
    job = _job(1024)
    tiers = StorageAssumptions(checkpoint_tiers={"host-memory": [200.0, 1000.0, 0],
                                                 "local-nvme": [1.0, 30000.0, 0]})
    r = evaluate(dataclasses.replace(design, assumptions=Assumptions(storage=tiers)), catalog,
                 job).reliability
    size_b = r.checkpoint_size_gb * 1e9
    snapshot_s = size_b / (128 * 200e9)
    nvme_s = size_b / (128 * 1e9)                       # 128 GB/s, slower than storage's 208
    assert r.checkpoint_tiers_used == ("host-memory", "local-nvme")
    assert r.checkpoint_write_s == pytest.approx(snapshot_s + nvme_s)
    assert r.checkpoint_recoverable_after_s == pytest.approx(r.checkpoint_write_s)
    assert r.checkpoint_restore_from == "storage"


def test_generate_converged_storage_on_the_compute_spines(catalog, tmp_path, capsys):
    path = tmp_path / "converged.json"
    assert main(["generate", "fat-tree", "--gpus", "1024", "--server", "DGX-H100", "--switch",
                 "QM9700", "--storage", "WEKApod", "--storage-nodes", "16",
                 "--storage-fabric", "converged", "-o", str(path)]) == 0
    assert main(["evaluate", str(path), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # 16 x 16 x 400G = 256 storage ports at 32 down per QM9700 leaf: 8 storage leaves whose
    # 256 uplinks take 4 more 64-port spines than the compute leaves' 16
    assert data["counts"]["switches_by_tier"] == {"leaf": 32, "spine": 20, "storage-leaf": 8}
    assert not [w for w in data["warnings"] if w["severity"] != "info"]
    read = data["storage"]["data_loading"]
    assert read["path"].startswith("DGX-H100 (8 x 400G ConnectX-7 compute NICs per node) -> "
                                   "leaf switches -> spine switches -> storage-leaf switches")
    assert read["bottleneck"] == "WEKApod throughput" and read["job_gbyte_s"] == 16 * 720


def test_converged_storage_in_three_tiers_is_one_more_pod(catalog):
    design = generate_fat_tree(FatTreeOptions(4096, "DGX-H100", "QM9700", storage="AI400X2",
                                              storage_nodes=16, storage_fabric="converged"),
                               catalog)
    ev = evaluate(design, catalog)
    assert ev.counts.switches_by_tier["storage-spine"] == 2
    assert ev.counts.switches_by_tier["core"] == 65   # 64 for the compute pods, 1 more
    assert ev.storage.fabric == "converged"
    assert "core switches -> storage-spine switches -> storage-leaf switches" in \
        ev.storage.classes["checkpoint_write"].path


def test_converged_storage_beyond_what_the_leaves_reach_says_so(catalog):
    with pytest.raises(GeneratorError, match="converged storage needs .* spines but a compute "
                                             "leaf reaches only 32"):
        generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700", storage="WEKApod",
                                         storage_nodes=200, storage_fabric="converged"), catalog)


def test_storage_ports_faster_than_the_fabric_keep_their_speed(catalog):
    # WEKApod's 16 x 400G on a 200G storage fabric: 16 links of 400G, not 32 of 200G
    design = generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700", storage="WEKApod",
                                              storage_nodes=4), catalog)
    link = design.root.children["storage-fabric"].links[0]
    assert (link.speed_gbit_s, link.count) == (400.0, 64)
    assert "NODE_PORTS_EXCEEDED" not in {w.code for w in evaluate(design, catalog).warnings}


@settings(max_examples=25)
@given(gpus=st.sampled_from([64, 1024, 4096]), storage=st.sampled_from(["AI400X2", "WEKApod"]),
       nodes=st.integers(1, 5000), storage_switch=st.sampled_from(["QM9700", "SN5600", "TH5"]),
       fabric=st.sampled_from(["separate", "converged"]))
def test_generated_storage_is_within_its_ports_or_refused_plainly(
        catalog, gpus, storage, nodes, storage_switch, fabric):
    options = FatTreeOptions(gpus, "DGX-H100", "QM9700", storage=storage, storage_nodes=nodes,
                             storage_switch=storage_switch, storage_fabric=fabric)
    try:
        design = generate_fat_tree(options, catalog)
    except GeneratorError as exc:
        assert "\n" not in str(exc)
        return
    ev = evaluate(design, catalog)
    codes = {w.code for w in ev.warnings}
    assert not codes & {"SWITCH_PORTS_EXCEEDED", "NODE_PORTS_EXCEEDED", "PORT_SPEED_UNSUPPORTED"}
    spec = catalog.get(storage)
    read = ev.storage.classes["data_loading"]
    assert ev.counts.storage_nodes == nodes and ev.storage.fabric == fabric
    assert read.job_gbyte_s <= nodes * spec.read_gbyte_s * (1 + 1e-9)


def test_a_serving_workload_has_no_checkpoint_figures(capsys):
    """An inference workload saves no checkpoint: every checkpoint figure is null (not 0 s, a
    number computed as if it could be), as the size and the interval already were."""
    from designer.cli import main
    assert main(["evaluate", "resources/examples/dgx-h100-superpod-4su.json",
                 "--workload", "llama31-70b-serve", "--format", "json"]) == 0
    reliability = json.loads(capsys.readouterr().out)["reliability"]
    for key in ("checkpoint_size_gb", "checkpoint_blocking_s", "checkpoint_recoverable_after_s",
                "checkpoint_interval_min", "checkpoint_write_s"):
        assert reliability[key] is None, key
