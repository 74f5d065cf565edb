"""The bundled examples load, evaluate without errors, and show what their names promise."""

from pathlib import Path

import numpy as np
import pytest

from core.evaluate import evaluate
from core.flatten import flatten
from core.project import load_project

EXAMPLES = Path(__file__).resolve().parent.parent / "resources" / "examples"
EXPECTED_GPUS = {
    "dgx-h100-superpod-4su": 1024,
    "gb200-nvl72-su": 576,
    "cloudmatrix384": 384,
    "islands-4x2048-h100": 8192,
    "hand-drawn-nvl72-x4": 288,
    "h100-100k": 100_000,
    "train-and-serve": 1024 + 576,
}


@pytest.mark.parametrize("name,gpus", EXPECTED_GPUS.items())
def test_example_evaluates(catalog, name, gpus):
    design = load_project(EXAMPLES / f"{name}.json", catalog)
    ev = evaluate(design, catalog)
    assert ev.counts.gpus == gpus
    assert ev.performance is not None and 0.05 < ev.performance.mfu < 0.7
    assert ev.performance.fits_memory
    blocking = {"PARALLELISM_EXCEEDS_GPUS", "SWITCH_PORTS_EXCEEDED", "NODE_PORTS_EXCEEDED",
                "GPU_WITHOUT_SCALE_OUT", "DOES_NOT_FIT_MEMORY", "FABRIC_PARTITIONED"}
    assert not blocking & {w.code for w in ev.warnings}
    if name == "h100-100k":
        # Placed on the floor (issue 26), its one storage fabric's 202 leaves were once racked
        # together, 42-244 m from the SUs, past any 200G optic (LINK_TOO_LONG). Its leaves now
        # sit at the end of the compute rows they serve (core/site/pooled.py): every node's
        # storage cable stays in its row or the next (under 25 m, multimode) and the leaf-spine uplinks
        # are the long runs, on the SN5600's 800G cages (500 m 2xDR4, P: MMS4X00-NM).
        c = ev.site.cables
        flat = flatten(design, catalog)
        to_leaf = np.isin(c.bundle, [k for k in range(len(flat.cables))
                                     if flat.paths[flat.bundle_b[k]] == "storage-fabric/leaf"])
        assert 0 < c.length_m[to_leaf].max() < 25.0
    assert ev.valid, [f"{w.code}: {w.message}" for w in ev.errors]  # buildable as drawn


def test_default_example_is_the_4su_superpod_with_storage(catalog):
    ev = evaluate(load_project(EXAMPLES / "dgx-h100-superpod-4su.json", catalog), catalog)
    assert ev.counts.switches_by_tier["leaf"] == 32 and ev.counts.switches_by_tier["spine"] == 16
    assert ev.counts.storage_nodes == 4
    assert ev.bandwidth.storage_read_gbyte_s > 0


def test_uncalibrated_accelerators_are_flagged(catalog):
    # Ascend 910C has no fitted published run (docs/validation.md); H100 (NeMo 24.09 rows) and
    # GB200 (NeMo 25.04 NVL72 rows G-*) have.
    ascend = evaluate(load_project(EXAMPLES / "cloudmatrix384.json", catalog), catalog)
    gb200 = evaluate(load_project(EXAMPLES / "gb200-nvl72-su.json", catalog), catalog)
    h100 = evaluate(load_project(EXAMPLES / "dgx-h100-superpod-4su.json", catalog), catalog)
    assert "UNCALIBRATED_ACCELERATOR" in {w.code for w in ascend.warnings}
    assert "UNCALIBRATED_ACCELERATOR" not in {w.code for w in gb200.warnings}
    assert "UNCALIBRATED_ACCELERATOR" not in {w.code for w in h100.warnings}


def test_hand_drawn_nvl72_racks_are_72_gpu_nvlink_domains(catalog):
    # The racks are drawn from trays and NVLink5 chips: the domain and its 900 GB/s per GPU
    # come from the drawn scale-up links, as for the catalog's GB200-NVL72 (hardware.md §3).
    ev = evaluate(load_project(EXAMPLES / "hand-drawn-nvl72-x4.json", catalog), catalog)
    assert ev.bandwidth.scale_up_domain_gpus == 72
    assert ev.bandwidth.per_gpu_scale_up_gbyte_s == 900
    assert ev.bandwidth.per_gpu_by_level_gbit_s["leaf"] == 400


def test_train_and_serve_trains_on_h100_and_serves_on_gb200(catalog):
    ev = evaluate(load_project(EXAMPLES / "train-and-serve.json", catalog), catalog)
    assert ev.partitions.main.fabric.accelerator.id == "H100-SXM5-80GB" and ev.performance.job_gpus == 1024
    (service,) = ev.services
    assert service.partition.fabric.accelerator.id == "GB200" and service.partition.gpus == 576
    assert service.inference.runs and service.inference.meets_slo
