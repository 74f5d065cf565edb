"""The distributed sweep backend against a real local Dask cluster (two worker processes)."""

import json

import pytest

from core.sweep.dask_backend import LOCAL_HTTP_ADDRESS
from core.sweep.run import run_sweep
from core.sweep.spec import sweep_spec_from_dict
from designer.cli import main

distributed = pytest.importorskip(
    "dask.distributed", reason="dask.distributed is not installed: pip install '.[distributed]'")

SPEC = {"template": "fat-tree",
        "options": {"gpus": [512, 1024], "server": "DGX-H100", "switch": ["QM9700", "SN5600"],
                    "island_gpus": [None, 1001]},
        "workloads": ["llama3-70b"], "assumptions": {"power.pue": [1.2, 1.3]}}


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=LOCAL_HTTP_ADDRESS, silence_logs=40) as local:
        yield local


def test_dask_cluster_gives_the_local_backends_rows(cluster):
    spec = sweep_spec_from_dict(SPEC)
    assert spec.combinations == 16
    finished = []
    recipes, on_dask = run_sweep(spec, jobs=2, backend="dask", scheduler=cluster.scheduler_address,
                                 progress=finished.append)
    local_recipes, local = run_sweep(spec, jobs=1)
    assert recipes == local_recipes
    assert on_dask == local
    assert sum(finished) == 16
    assert sum(o["error"] is not None for o in on_dask) == 8


def test_cli_dask_backend_writes_the_same_file_as_local(tmp_path, cluster):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps(SPEC))
    local, on_dask = tmp_path / "local.csv", tmp_path / "dask.csv"
    assert main(["sweep", str(spec), "-o", str(local), "--jobs", "1", "--no-progress"]) == 0
    assert main(["sweep", str(spec), "-o", str(on_dask), "--backend", "dask",
                 "--scheduler", cluster.scheduler_address, "--no-progress"]) == 0
    assert on_dask.read_bytes() == local.read_bytes()


def test_scheduler_needs_the_dask_backend(tmp_path, capsys):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps(SPEC))
    assert main(["sweep", str(spec), "-o", str(tmp_path / "r.csv"), "--scheduler", "tcp://127.0.0.1:1"]) == 2
    assert capsys.readouterr().err == "cluster-designer: --scheduler goes with --backend dask\n"


def test_dask_backend_without_scheduler_starts_its_own_cluster(tmp_path, capsys):
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({**SPEC, "assumptions": {}}))
    local, on_dask = tmp_path / "local.csv", tmp_path / "dask.csv"
    assert main(["sweep", str(spec), "-o", str(local), "--jobs", "1", "--no-progress"]) == 0
    assert main(["sweep", str(spec), "-o", str(on_dask), "--backend", "dask", "--jobs", "2",
                 "--no-progress"]) == 0
    assert on_dask.read_bytes() == local.read_bytes()
    assert capsys.readouterr().err.count("8 designs, 4 with an error") == 2
