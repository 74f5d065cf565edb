"""The command-line contract: outputs, and one-line errors with no traceback and no partial file."""

import argparse
import json
import shlex
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


# --- presets fitted to the design ----------------------------------------------------------
def _generate(path, *extra):
    assert main(["generate", "fat-tree", "--gpus", "2048", "--server", "DGX-H100", "--switch", "QM9700",
                 *extra, "-o", str(path)]) == 0
    return json.loads(path.read_text())["workload"]


def test_generate_fits_a_preset_to_the_design_unless_asked_to_keep_it(tmp_path, capsys):
    fitted = _generate(tmp_path / "fit.json", "--workload", "llama3-70b")  # TP 8 PP 4 DP 32 in the preset
    note = "Preset Llama 3 70B fitted to 2,048 GPUs: DP 32 -> 64, global batch 512 -> 1,024 sequences (16 micro-batches of 1 per replica, as in the preset); TP 8, PP 4 kept"
    assert capsys.readouterr().err.strip() == f"cluster-designer: {note}"
    assert {k: fitted["parallelism"][k] for k in ("tp", "pp", "dp", "global_batch")} == \
        {"tp": 8, "pp": 4, "dp": 64, "global_batch": 1024}
    assert fitted["preset_fit"]["note"] == note and fitted["preset_fit"]["preset_parallelism"]["dp"] == 32
    kept = _generate(tmp_path / "kept.json", "--workload", "llama3-70b", "--keep-preset-layout")
    assert kept["parallelism"]["dp"] == 32 and "preset_fit" not in kept


@pytest.fixture(scope="module")
def bare_2048(tmp_path_factory):
    path = tmp_path_factory.mktemp("cli") / "bare.json"
    assert main(["generate", "fat-tree", "--gpus", "2048", "--server", "DGX-H100", "--switch", "QM9700",
                 "-o", str(path)]) == 0
    return path


@pytest.mark.parametrize("extra, job_gpus, fitted", [
    (["--workload", "llama3-70b"], 2048, True),
    (["--workload", "llama3-70b", "--keep-preset-layout"], 1024, False),
    (["--workload", str(ROOT / "resources" / "workloads" / "llama3-70b.json")], 1024, False),  # a file: as written
])
def test_evaluate_fits_presets_by_name_only(bare_2048, capsys, extra, job_gpus, fitted):
    assert main(["evaluate", str(bare_2048), *extra]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["performance"]["job_gpus"] == job_gpus
    fit = data["workload"].get("preset_fit")
    assert (fit is not None) == fitted
    if fitted:
        assert fit["preset"] == "llama3-70b" and fit["design_gpus"] == 2048
        assert fit["preset_parallelism"]["dp"] == 32 and "DP 32 -> 64" in fit["note"]


def test_reports_say_the_preset_was_fitted(bare_2048, capsys):
    assert main(["evaluate", str(bare_2048), "--workload", "llama3-70b", "--format", "md"]) == 0
    assert "| Preset fitted to the design | Preset Llama 3 70B fitted to 2,048 GPUs" in capsys.readouterr().out


def test_a_design_smaller_than_the_preset_keeps_it_and_says_so(tmp_path, capsys):
    path = tmp_path / "nvl72.json"
    assert main(["generate", "supernode", "--system", "GB200-NVL72", "--count", "1",
                 "--workload", "llama3-405b", "-o", str(path)]) == 0
    assert "needs at least 128 GPUs (TP 8 x PP 16 x CP 1) and the design has 72" in capsys.readouterr().err
    assert json.loads(path.read_text())["workload"]["parallelism"]["dp"] == 128  # not an invented layout


# --- help ----------------------------------------------------------------------------------
def _parsers(parser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                yield from _parsers(child)


def test_every_option_has_help_and_every_command_an_example_that_parses():
    cli = sys.modules[main.__module__]  # wherever the CLI module lives
    parsers = [*_parsers(cli._build_parser()), cli._gui_parser()]
    assert {p.prog for p in parsers} >= {"cluster-designer evaluate", "cluster-designer generate fat-tree",
                                         "cluster-designer generate supernode", "cluster-designer export",
                                         "cluster-designer catalog"}
    for parser in parsers:
        text = parser.format_help()
        for action in parser._actions:
            assert action.help and action.help != argparse.SUPPRESS, f"{parser.prog}: {action.dest} has no help"
            assert all(option in text for option in action.option_strings)
            if action.type is cli._ratio:
                assert "down:up" in action.help, f"{parser.prog} {action.option_strings}: say the ratio's form"
        assert "\nexample:\n  cluster-designer " in text, f"{parser.prog}: no example"
        for line in text.split("\nexample:\n", 1)[1].replace("\\\n", " ").splitlines():
            argv = shlex.split(line)[1:]
            target = cli._build_parser() if argv[0] in cli.SUBCOMMANDS else cli._gui_parser()
            target.parse_args(argv)  # an example that does not parse exits 2 and fails here
