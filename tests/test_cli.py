"""The command-line contract: outputs, and one-line errors with no traceback and no partial file."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from designer.cli import main

ROOT = Path(__file__).resolve().parent.parent
CONTRACT = {
    "counts": ["gpus", "servers", "switches", "switches_by_tier", "nics", "dpus", "storage_nodes",
               "links", "transceivers"],
    "bandwidth": ["scale_up_domain_gpus", "per_gpu_scale_up_gbyte_s", "per_gpu_scale_out_gbit_s",
                  "bisection_tbit_s", "oversubscription_by_tier", "allreduce_busbw_gbyte_s",
                  "alltoall_per_gpu_gbyte_s", "storage_read_gbyte_s"],
    "latency": ["max_switch_hops", "gpu_to_gpu_max_us", "gpu_to_gpu_mean_us", "allreduce_small_us"],
    "power": ["it_kw", "facility_kw", "pue", "by_kind_kw", "max_rack_kw"],
    "reliability": ["interruptions_per_day", "mtbi_hours", "checkpoint_write_s",
                    "checkpoint_interval_min", "ettr", "single_points_of_failure"],
    "performance": ["mfu", "tflops_per_gpu", "step_time_s", "tokens_per_s", "training_days",
                    "memory_per_gpu_gb", "fits_memory", "breakdown_s"],
}


def run(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "designer.cli", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120, **kwargs)


@pytest.fixture(scope="module")
def superpod(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "x.json"
    assert main(["generate", "fat-tree", "--gpus", "16384", "--server", "DGX-H100", "--switch",
                 "QM9700", "--workload", "gpt3-175b", "-o", str(path)]) == 0
    return path


def test_evaluate_json_has_every_contract_key(superpod, capsys):
    assert main(["evaluate", str(superpod), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["format"] == "cluster-designer.evaluation/1"
    for section, keys in CONTRACT.items():
        for key in keys:
            assert key in data[section], f"{section}.{key}"
    assert data["counts"]["switches_by_tier"] == {"leaf": 512, "spine": 512, "core": 256}
    assert isinstance(data["warnings"], list)
    assert 0 < data["performance"]["mfu"] < 1


@pytest.mark.parametrize("gpus,tiers", [(1024, {"leaf": 32, "spine": 16}),
                                         (4096, {"leaf": 128, "spine": 128, "core": 64})])
def test_superpod_sizes_through_cli(tmp_path, capsys, gpus, tiers):
    path = tmp_path / "p.json"
    assert main(["generate", "fat-tree", "--gpus", str(gpus), "--server", "DGX-H100", "--switch",
                 "QM9700", "-o", str(path)]) == 0
    assert main(["evaluate", str(path)]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["switches_by_tier"] == tiers


@pytest.mark.parametrize("fmt,check", [
    ("md", lambda t: t.startswith("# ") and "## Bill of materials" in t and "## Assumptions" in t),
    ("html", lambda t: t.startswith("<!DOCTYPE html>") and "</html>" in t),
    ("csv", lambda t: t.splitlines()[0] == "section,key,metric,value"),
    ("bom", lambda t: "QM9700" in t and t.splitlines()[0].startswith("kind,catalog_id")),
])
def test_report_formats(superpod, tmp_path, fmt, check):
    out = tmp_path / f"report.{fmt}"
    assert main(["evaluate", str(superpod), "--format", fmt, "-o", str(out)]) == 0
    assert check(out.read_text())


def test_catalog_listing(capsys):
    assert main(["catalog", "--kind", "switch", "--format", "json"]) == 0
    ids = {entry["id"] for entry in json.loads(capsys.readouterr().out)}
    assert {"QM9700", "Q3400", "SN5600", "TH5"} <= ids


@pytest.mark.parametrize("args,message", [
    (["evaluate", "missing.json"], "no such file"),
    (["generate", "fat-tree", "--gpus", "0", "--server", "DGX-H100", "--switch", "QM9700", "-o", "{out}"],
     "must be positive"),
    (["generate", "fat-tree", "--gpus", "-64", "--server", "DGX-H100", "--switch", "QM9700", "-o", "{out}"],
     "must be positive"),
    (["generate", "fat-tree", "--gpus", "1000000", "--server", "DGX-H100", "--switch", "QM9700", "-o", "{out}"],
     "exceed"),
    (["generate", "fat-tree", "--gpus", "64", "--server", "DGX-X", "--switch", "QM9700", "-o", "{out}"],
     "unknown component id 'DGX-X'"),
    (["generate", "supernode", "--system", "GB200-NVL72", "--count", "0", "-o", "{out}"], "positive"),
    (["generate", "fat-tree", "--gpus", "abc", "--server", "DGX-H100", "--switch", "QM9700", "-o", "{out}"],
     "not a whole number"),
    (["catalog", "--kind", "toaster"], "unknown kind"),
    (["evaluate", "{bad}"], "invalid JSON"),
    (["evaluate", "{good}", "--workload", "nope.json"], "cannot read workload"),
])
def test_bad_input_is_one_line_without_traceback_or_output(tmp_path, superpod, args, message):
    bad = tmp_path / "bad.json"
    bad.write_text("{ not json")
    out = tmp_path / "out.json"
    args = [a.format(out=out, bad=bad, good=superpod) for a in args]
    result = run(*args)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()


def test_failed_evaluate_does_not_leave_partial_output(tmp_path, superpod):
    out = tmp_path / "report.md"
    out.write_text("previous report")
    result = run("evaluate", str(tmp_path / "missing.json"), "--format", "md", "-o", str(out))
    assert result.returncode == 2
    assert out.read_text() == "previous report"
