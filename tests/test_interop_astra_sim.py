"""ASTRA-sim export: the files are read here with the keys, types and checks of ASTRA-sim's own
parsers, so a design's export is one ASTRA-sim would load.

Sources (read, not copied; P):
* network.yml: astra-sim/astra-network-analytical @599a0473 (the analytical backend, a submodule
  of astra-sim), common/network-parser/NetworkParser.cpp: parse_network_config_yml (l. 66-84)
  reads ``topology`` as strings, ``npus_count`` as int, ``bandwidth`` and ``latency`` as double
  (Type.h: Bandwidth, Latency = double; GB/s and ns); parse_topology_name (l. 86-104) takes
  Ring, FullyConnected, Switch; check_validity (l. 106-152): equal lengths, npus_count > 1,
  bandwidth > 0, latency >= 0. congestion_aware/topology/Helper.cpp takes one dimension only.
* system.json: astra-sim/astra-sim @518bd513, astra-sim/system/Sys.cc Sys::initialize_sys
  (l. 312-431): scheduling-policy in LIFO/FIFO/EXPLICIT (l. 325-336), collective-optimization
  baseline/localBWAware (l. 337-347), ints for endpoint-delay, active-chunks-per-dimension,
  preferred-dataset-splits (Sys.hh l. 280, 295, 298), doubles for peak-perf and local-mem-bw
  (Sys.hh l. 263, 269); astraccl/CollectiveImplLookup.cc (l. 20-50, 92-130): the
  *-implementation lists of ring, oneRing, doubleBinaryTree, direct[N], oneDirect[N],
  halvingDoubling, oneHalvingDoubling; Sys.cc l. 784 indexes them by dimension, so each list
  has one entry per network dimension.
* remote_memory.json: examples/remote_memory/analytical/no_memory_expansion.json.
"""

import json
import math
import re

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import DesignError
from core.flatten import flatten
from core.generators import FatTreeOptions, generate_fat_tree
from core.interop.astra_sim import FILES, astra_sim_files, write_astra_sim
from core.model import Block, Design, Node
from core.project import load_project, save_project
from core.topology import analyze_topology
from designer.cli import main
from tests.test_cli import ROOT

EXAMPLES = sorted((ROOT / "resources" / "examples").glob("*.json"))
_IMPLEMENTATION = re.compile(r"^(ring|oneRing|doubleBinaryTree|halvingDoubling|oneHalvingDoubling"
                             r"|direct\d{0,5}|oneDirect\d{0,5})$")


def read_network(text: str) -> dict:
    """network.yml as NetworkParser.cpp reads and checks it."""
    config = yaml.safe_load(text)
    topology = config["topology"]
    assert all(name in ("Ring", "FullyConnected", "Switch") for name in topology)
    npus, bandwidth, latency = config["npus_count"], config["bandwidth"], config["latency"]
    assert all(isinstance(n, int) and not isinstance(n, bool) for n in npus)  # as<int>
    assert all(isinstance(v, (int, float)) for v in bandwidth + latency)       # as<double>
    assert len(npus) == len(bandwidth) == len(latency) == len(topology) >= 1
    assert all(n > 1 for n in npus) and all(b > 0 for b in bandwidth) and all(t >= 0 for t in latency)
    return config


def read_system(text: str, dims: int) -> dict:
    """system.json as Sys::initialize_sys and CollectiveImplLookup read it."""
    config = json.loads(text)
    assert config["scheduling-policy"] in ("LIFO", "FIFO", "EXPLICIT")
    assert config["collective-optimization"] in ("baseline", "localBWAware")
    for key in ("endpoint-delay", "active-chunks-per-dimension", "preferred-dataset-splits",
                "roofline-enabled", "boost-mode"):
        assert isinstance(config[key], int)
    for key in ("local-mem-bw", "peak-perf"):
        assert isinstance(config.get(key, 0.0), float) and config.get(key, 1.0) > 0
    for collective in ("all-reduce", "all-gather", "reduce-scatter", "all-to-all"):
        impls = config[f"{collective}-implementation"]
        assert len(impls) == dims and all(_IMPLEMENTATION.match(i) for i in impls)
    return config


def _check(files: dict) -> tuple[dict, dict]:
    assert set(files) == set(FILES)
    network = read_network(files["network.yml"])
    system = read_system(files["system.json"], len(network["topology"]))
    assert json.loads(files["remote_memory.json"]) == {"memory-type": "NO_MEMORY_EXPANSION"}
    return network, system


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_exports_files_astra_sim_reads(path, catalog):
    design = load_project(path, catalog)
    network, _ = _check(astra_sim_files(design, catalog))
    assert math.prod(network["npus_count"]) <= flatten(design, catalog).gpus


def test_the_100k_cluster_is_four_dimensions_with_its_bandwidth_and_latency(catalog):
    design = load_project(ROOT / "resources" / "examples" / "h100-100k.json", catalog)
    files = astra_sim_files(design, catalog)
    network, system = _check(files)
    # 8 GPUs per DGX H100 behind NVSwitch, 64 of them under a leaf (512 GPUs), 8 leaf groups
    # per spine pod (4,096), and 24 whole pods of the 100,000 GPUs' 24.4 under the cores
    assert network["topology"] == ["Switch"] * 4
    assert network["npus_count"] == [8, 64, 8, 24]
    # NVLink4 450 GB/s per direction (catalog), one 400G NIC per GPU = 50 GB/s at every tier,
    # in ASTRA-sim's GB of 2^30 bytes (astra-network-analytical common/NetworkFunction.cpp
    # bw_GBps_to_Bpns, l. 11-17)
    assert network["bandwidth"] == pytest.approx([450e9 / 2**30] + [50e9 / 2**30] * 3, rel=1e-9)
    # the one-way latencies of the topology analysis (1.0, 1.7, 3.2, 5.4 us), two hops each
    assert network["latency"] == pytest.approx([500.0, 850.0, 1600.0, 2700.0])
    # so a message across a dimension takes as long in ASTRA-sim (congestion_unaware
    # BasicTopology.cpp compute_communication_delay: hops x latency + bytes / (GB/s x 2^30 / 1e9)
    # B/ns; a Switch is two hops) as on the level here: its latency + bytes / line rate
    fabric = analyze_topology(flatten(design, catalog)).fabric
    size = 1 << 20
    for dim, level in enumerate(fabric.levels[:4]):
        astra_ns = 2 * network["latency"][dim] + size / (network["bandwidth"][dim] * 2**30 / 1e9)
        ours_ns = level.latency_us * 1000 + size / level.per_gpu_gbyte_s
        assert astra_ns == pytest.approx(ours_ns, rel=1e-9)
    assert system["local-mem-bw"] == 3350.0 and system["peak-perf"] == pytest.approx(989.4)
    assert "98,304 NPUs of the design's 100,000 GPUs" in files["README.md"]
    assert "24.41 domains of 4,096" in files["README.md"]


def test_a_full_mesh_scale_up_is_fully_connected_with_the_bandwidth_per_link(catalog):
    # MI300X: xGMI full mesh of 8 GPUs, 448 GB/s per GPU (catalog) over 7 links = 64 GB/s each
    design = generate_fat_tree(FatTreeOptions(gpus=64, server="MI300X-Platform", switch="QM9700"), catalog)
    network, system = _check(astra_sim_files(design, catalog))
    assert network["topology"][0] == "FullyConnected" and network["npus_count"][0] == 8
    per_gpu = float(catalog.get("MI300X").scale_up_gbyte_s_per_dir)
    assert network["bandwidth"][0] == pytest.approx(per_gpu / 7 * 1e9 / 2**30)
    assert system["all-reduce-implementation"][0] == "direct"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(servers=st.integers(2, 2_500), switch=st.sampled_from(["QM9700", "SN5600"]),
       oversubscription=st.sampled_from([1.0, 2.0, 3.0]))
def test_generated_designs_always_export_what_astra_sim_reads(catalog, servers, switch, oversubscription):
    gpus = 8 * servers
    design = generate_fat_tree(FatTreeOptions(gpus=gpus, server="DGX-H100", switch=switch,
                                              oversubscription=oversubscription), catalog)
    network, _ = _check(astra_sim_files(design, catalog))
    assert math.prod(network["npus_count"]) <= gpus


def test_cli_writes_the_folder_and_replaces_only_its_own(tmp_path, capsys):
    project = ROOT / "resources" / "examples" / "gb200-nvl72-su.json"
    out = tmp_path / "nvl72.astra"
    assert main(["export", str(project), "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    assert read_network((out / "network.yml").read_text())["npus_count"] == [72, 8]
    assert main(["export", str(project), "-o", str(out)]) == 0  # an earlier export is replaced
    (out / "mine.txt").write_text("keep me")
    assert main(["export", str(project), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "holds 'mine.txt', not an ASTRA-sim export's" in err and err.count("\n") == 1
    assert (out / "mine.txt").read_text() == "keep me"
    assert [p.name for p in tmp_path.iterdir()] == ["nvl72.astra"]  # no staging folder left


def test_a_design_without_gpus_is_refused_and_nothing_is_written(catalog, tmp_path):
    design = Design("switches only", Block(id="root", name="root",
                                           children={"leaf": Node("leaf", "QM9700", count=2, tier="leaf")}))
    with pytest.raises(DesignError, match="no GPUs"):
        write_astra_sim(design, catalog, tmp_path / "none.astra")
    assert list(tmp_path.iterdir()) == []
    project = tmp_path / "p.json"
    save_project(design, project)
    assert main(["export", str(project), "-o", str(tmp_path / "none.astra")]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json"]
