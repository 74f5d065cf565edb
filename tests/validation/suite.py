"""Run every validation row through the public path and compare with the published numbers.

Performance and topology rows are projects written with ``core.project.save_project`` and
evaluated with ``python -m designer.cli evaluate P --format json`` (in-process through
``designer.cli.main``; rows marked ``subprocess`` through a real child process). Power rows read the
evaluation JSON too; reliability rows call the reliability functions directly (they are
formulas, not designs).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from core.analysis.compute import dense_peak
from core.analysis.model_stats import hardware_flops_per_token, model_flops_per_token
from core.analysis.performance import PerformanceAssumptions
from core.analysis.step_time import job_fabric, layout_step_time
from core.analysis.reliability import daly_efficiency, daly_interval, first_order_ettr
from core.assumptions import Assumptions
from core.catalog import default_catalog
from designer.cli import main as cli_main
from core.generators import FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode
from core.generators.clos import plan_clos
from core.flatten import flatten
from core.precision_recipes import recipe
from core.project import load_project, save_project
from core.topology import analyze_topology
from core.workload import workload_from_dict

from . import cases as C

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class RowResult:
    section: str            # "performance", "topology", "power", "cost", "reliability", "not-modelled"
    id: str
    group: str
    title: str
    published: str          # human-readable published value(s)
    predicted: str          # human-readable prediction
    error: str              # human-readable error
    error_value: float | None   # the number compared with the tolerance (same unit)
    tolerance: float | None
    tolerance_text: str
    policy: str             # gated / known-miss / report-only / not-modelled
    status: str             # pass / FAIL / known miss / report-only / not modelled
    note: str = ""
    source: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def within(self) -> bool | None:
        if self.error_value is None or self.tolerance is None:
            return None
        return abs(self.error_value) <= self.tolerance + 1e-12


def _status(policy: str, within: bool | None) -> str:
    if policy == "not-modelled":
        return "not modelled"
    if policy == "report-only":
        return "report-only"
    if within is None:
        return "FAIL"
    if policy == "known-miss":
        return "pass (known-miss row)" if within else "known miss"
    return "pass" if within else "FAIL"


# ------------------------------------------------------------------------------------------
# the CLI path


def run_cli(args: list[str], use_subprocess: bool = False) -> str:
    """``cluster-designer ARGS`` in-process (designer.cli.main) or as ``python -m designer.cli``."""
    if use_subprocess:
        done = subprocess.run([sys.executable, "-m", "designer.cli", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise RuntimeError(f"cluster-designer {' '.join(args)}: {done.stderr.strip()}")
        return done.stdout
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(list(args))
    if code != 0:
        raise RuntimeError(f"cluster-designer {' '.join(args)}: {err.getvalue().strip()}")
    return out.getvalue()


def evaluate_project(path: Path, use_subprocess: bool = False, fmt: str = "json"):
    text = run_cli(["evaluate", str(path), "--format", fmt], use_subprocess)
    return json.loads(text) if fmt == "json" else text


def build_design(hardware: dict, catalog):
    if hardware["template"] == "supernode":
        return generate_supernode(
            SupernodeOptions(hardware["system"], hardware["count"], hardware.get("switch")),
            catalog)
    return generate_fat_tree(
        FatTreeOptions(hardware["gpus"], hardware["server"], hardware["switch"]), catalog)


def server_of(hardware: dict) -> str:
    return hardware.get("server") or hardware["system"]


# ------------------------------------------------------------------------------------------
# performance rows


def write_perf_project(case: C.PerfCase, folder: Path, extra_assumptions: dict | None = None) -> Path:
    catalog = default_catalog()
    design = build_design(case.hardware, catalog)
    design.name = f"validation row {case.id}: {case.title}"
    design.workload = workload_from_dict({
        "name": f"{case.title} (performance.md §9 row {case.id})",
        "model": case.model,
        "parallelism": case.parallelism,
        "precision": case.precision,
        "optimizer": case.optimizer,
        "training_tokens": case.training_tokens,
    })
    design.assumptions = Assumptions(
        performance=PerformanceAssumptions(**{**case.stack, **(extra_assumptions or {})}))
    path = folder / f"row-{case.id}.json"
    save_project(design, path)
    return path


@dataclass
class PerfPrediction:
    step_s: float
    util: float            # in the row's definition
    mfu_engine: float | None  # the engine's own MFU (causal as the model says); None: cannot run
    days: float            # training tokens / tokens_per_s (no ETTR)
    breakdown: dict
    memory_gb: float
    fits: bool
    warnings: tuple


def _row_flops_per_step(case: C.PerfCase) -> float:
    wl = workload_from_dict({"model": case.model, "parallelism": case.parallelism})
    model, par = wl.model, wl.parallelism
    tokens = par.global_batch * model.seq_len
    if case.util_kind == "hfu":
        per_token = hardware_flops_per_token(model, par.recompute, causal=case.causal_counting)
    else:
        per_token = model_flops_per_token(model, causal=case.causal_counting)
    return per_token * tokens


def _peak_flops(case: C.PerfCase) -> float:
    catalog = default_catalog()
    acc = catalog.get(catalog.get(server_of(case.hardware)).accelerator)
    # the dense peak of the precision the recipe runs its linear GEMMs at (mxfp8, fp8-block: fp8)
    return acc.peak_tflops(recipe(case.precision).gemm_precision) * 1e12


def _gpus(case: C.PerfCase) -> int:
    p = case.parallelism
    return p.get("tp", 1) * p.get("pp", 1) * p.get("dp", 1) * p.get("cp", 1)


def predict(case: C.PerfCase, folder: Path, use_subprocess: bool | None = None,
            extra_assumptions: dict | None = None) -> PerfPrediction:
    path = write_perf_project(case, folder, extra_assumptions)
    ev = evaluate_project(path, case.subprocess if use_subprocess is None else use_subprocess)
    perf = ev["performance"]
    if perf["runs"]:
        step, tokens_per_s, breakdown = (perf["step_time_s"], perf["tokens_per_s"],
                                         perf["breakdown_s"])
    else:
        step, tokens_per_s, breakdown = estimate_beyond_memory(path, perf["cannot_run"])
    util = _row_flops_per_step(case) / (_gpus(case) * _peak_flops(case) * step)
    days = case.training_tokens / tokens_per_s / 86400
    return PerfPrediction(step, util, perf["mfu"], days, breakdown,
                          perf["memory_per_gpu_gb"], perf["fits_memory"],
                          tuple(w["code"] for w in ev["warnings"]))


def estimate_beyond_memory(path: Path, reasons: list[dict]) -> tuple[float, float, dict]:
    """(step s, tokens/s, breakdown) of the step-time model for a row whose layout our memory
    model does not fit in the accelerator (the published run did fit: its memory savings are
    not in the table). The product shows no numbers for a job that cannot run; validation
    still compares the model's own estimate, from the same functions the analysis uses
    (``job_fabric``, ``layout_step_time``). Any other reason than memory is an error here."""
    if [r["code"] for r in reasons] != ["DOES_NOT_FIT_MEMORY"]:
        raise RuntimeError(f"{path.name}: the job cannot run: {reasons}")
    catalog = default_catalog()
    design = load_project(path, catalog)
    workload, a = design.workload, design.assumptions or Assumptions()
    fabric = analyze_topology(flatten(design, catalog), a.network).fabric
    par = workload.parallelism
    peak_tflops, precision = dense_peak(fabric.accelerator, workload.precision, None)
    core = layout_step_time(job_fabric(fabric, par.gpus, None), workload.model, par, precision,
                            a.performance, peak_tflops, par.gpus)
    tokens_per_s = core.global_batch * workload.model.seq_len / core.step_time_s
    return core.step_time_s, tokens_per_s, dict(core.breakdown_s)


def published_step(case: C.PerfCase) -> tuple[float | None, str]:
    """The published step time, or one derived (D) from the published utilisation."""
    if case.published_step_s is not None:
        return case.published_step_s, ""
    if case.published_util:
        return _row_flops_per_step(case) / (_gpus(case) * _peak_flops(case) * case.published_util), "D"
    return None, ""


def published_util(case: C.PerfCase) -> tuple[float | None, str]:
    if case.published_util is not None:
        return case.published_util, ""
    if case.published_step_s:
        return _row_flops_per_step(case) / (_gpus(case) * _peak_flops(case) * case.published_step_s), "D"
    return None, ""


def perf_row(case: C.PerfCase, pred: PerfPrediction) -> RowResult:
    step_pub, step_tag = published_step(case)
    util_pub, util_tag = published_util(case)
    step_err = pred.step_s / step_pub - 1.0 if step_pub else None
    util_err = pred.util - util_pub if util_pub is not None else None
    kind = case.util_kind.upper()
    if case.published_days is not None:
        published = f"{case.published_days:g} days; {kind} {100 * util_pub:.1f}%"
        predicted = f"{pred.days:.1f} days; {kind} {100 * pred.util:.1f}%"
        error = f"{100 * (pred.days / case.published_days - 1):+.1f}% days"
        value, tol, tol_text = None, None, "report-only"
    else:
        published = (f"{step_pub:.2f} s{' (' + step_tag + ')' if step_tag else ''}; "
                     f"{kind} {100 * util_pub:.1f}%{' (' + util_tag + ')' if util_tag else ''}")
        predicted = f"{pred.step_s:.2f} s; {kind} {100 * pred.util:.1f}%"
        error = f"{100 * step_err:+.1f}% step; {100 * util_err:+.1f} pt {kind}"
        if case.compare == "step":
            value, tol = step_err, case.tolerance
            tol_text = f"step ±{100 * case.tolerance:.0f}%"
        else:
            value, tol = util_err, case.tolerance
            tol_text = f"{kind} ±{100 * case.tolerance:.0f} pt"
    within = None if value is None else abs(value) <= tol + 1e-12
    note = case.reason
    if not pred.fits:
        note = (note + "; " if note else "") + f"does not fit memory ({pred.memory_gb:.0f} GB)"
    return RowResult(
        "performance", case.id, case.group, case.title, published, predicted, error, value,
        tol, tol_text, case.policy, _status(case.policy, within), note,
        f"{case.source} [{case.tag}]",
        extra={"case": case, "step_err": step_err, "util_err": util_err, "pred": pred,
               "util_pub": util_pub, "step_pub": step_pub},
    )


def run_performance(folder: Path, only: set[str] | None = None) -> list[RowResult]:
    out = []
    for case in C.ALL_PERF_CASES:
        if only and case.id not in only:
            continue
        out.append(perf_row(case, predict(case, folder)))
    for row_id, title, hardware, published, source, tag in C.NOT_MODELLED:
        if only and row_id not in only:
            continue
        out.append(RowResult("performance", row_id, hardware, title, published, "—", "—", None,
                             None, "—", "not-modelled", "not modelled",
                             f"not modelled: hardware not in catalog ({hardware})",
                             f"{source} [{tag}]"))
    return out


# ------------------------------------------------------------------------------------------
# topology rows


def _topology_counts(case: C.TopologyCase, folder: Path) -> dict:
    catalog = default_catalog()
    if case.kind == "plan_clos":
        plan = plan_clos(case.params["nodes"], case.params["endpoints"], case.params["radix"])
        return dict(plan.switches_by_tier)
    if case.kind == "fat-tree":
        path = folder / f"topo-{case.id}.json"
        ufm = ["--ufm", str(case.params["ufm"])] if case.params.get("ufm") else []
        run_cli(["generate", "fat-tree", "--gpus", str(case.params["gpus"]), "--server",
                 case.params["server"], "--switch", case.params["switch"], *ufm, "-o", str(path)],
                case.subprocess)
        ev = evaluate_project(path, case.subprocess)
        counts = dict(ev["counts"]["switches_by_tier"])
        counts["cables"] = ev["counts"]["links"]
        # node-leaf and leaf-spine cables from the bill of materials of the drawn bundles
        flat = flatten(load_project(path), catalog)
        node_leaf = leaf_spine = 0
        for bundle in flat.bundles:
            a = flat.groups[bundle.a].spec.kind
            b = flat.groups[bundle.b].spec.kind
            if "switch" in (a, b) and a != b:
                node_leaf += bundle.cables
            elif a == b == "switch":
                leaf_spine += bundle.cables
        counts["node_leaf_cables"] = node_leaf
        counts["leaf_spine_cables"] = leaf_spine
        return counts
    path = folder / f"topo-{case.id}.json"
    run_cli(["generate", "supernode", "--system", case.params["system"], "--count", "1", "-o",
             str(path)], case.subprocess)
    ev = evaluate_project(path, case.subprocess)
    bom = evaluate_project(path, case.subprocess, fmt="bom")
    by_id: dict[str, int] = {}
    for row in csv.DictReader(io.StringIO(bom)):
        by_id[row["catalog_id"]] = by_id.get(row["catalog_id"], 0) + int(row["quantity"])
    if case.kind == "nvl72":
        system = catalog.get(case.params["system"])
        acc = catalog.get(system.accelerator)
        chips = ev["counts"]["scale_up_switches"]
        chip = catalog.get(system.scale_up_switches[0].id)
        ports = sum(chip.ports_by_gbit_s.values())
        return {"gpu_links": ev["counts"]["gpus"] * int(acc.scale_up_links),
                "switch_ports": chips * ports, "switch_chips": chips}
    return {k: by_id.get(k, 0) for k in case.expected}


def run_topology(folder: Path) -> list[RowResult]:
    out = []
    for case in C.TOPOLOGY_CASES:
        got = _topology_counts(case, folder)
        diffs = {k: got.get(k, 0) - v for k, v in case.expected.items()}
        worst = max((abs(d) for d in diffs.values()), default=0)
        published = ", ".join(f"{k} {v:,}" for k, v in case.expected.items())
        predicted = ", ".join(f"{k} {got.get(k, 0):,}" for k in case.expected)
        error = "exact" if worst == 0 else ", ".join(
            f"{k} {d:+,}" for k, d in diffs.items() if d)
        within = worst == 0
        out.append(RowResult("topology", case.id, case.group, case.title, published, predicted,
                             error, float(worst), 0.0, "exact", case.policy,
                             _status(case.policy, within), case.reason, case.source,
                             extra={"diffs": diffs}))
    return out


# ------------------------------------------------------------------------------------------
# power rows


def run_power(folder: Path) -> list[RowResult]:
    out = []
    for case in C.POWER_CASES:
        path = folder / f"power-{case.id}.json"
        run_cli(["generate", "supernode", "--system", case.system, "--count", str(case.count),
                 "-o", str(path)])
        ev = evaluate_project(path)
        kw = ev["power"]["it_kw"] if case.include_network else ev["power"]["by_kind_kw"]["compute"]
        w = kw * 1000.0 / ev["counts"]["gpus"]
        if case.low_w == case.high_w:
            err = w / case.low_w - 1.0
            published = f"{case.low_w:,.0f} W"
            error = f"{100 * err:+.1f}%"
            tol, tol_text = C.POWER_TOLERANCE, f"±{100 * C.POWER_TOLERANCE:.0f}%"
        else:
            err = 0.0 if case.low_w <= w <= case.high_w else (
                w / case.low_w - 1.0 if w < case.low_w else w / case.high_w - 1.0)
            published = f"{case.low_w:,.0f}–{case.high_w:,.0f} W"
            error = "in range" if err == 0 else f"{100 * err:+.1f}% outside"
            tol, tol_text = 0.0, "in range"
        within = abs(err) <= tol + 1e-12
        out.append(RowResult("power", case.id, "Per-GPU all-in power (reliability-power.md §8.1)",
                             case.title, published, f"{w:,.0f} W", error, err, tol, tol_text,
                             case.policy, _status(case.policy, within), case.reason,
                             case.source))
    return out


# ------------------------------------------------------------------------------------------
# reliability rows


def run_reliability() -> list[RowResult]:
    out = []
    for mtbi, daly, numeric in C.DALY_ROWS:
        tau = daly_interval(5.0, mtbi)
        err = tau - daly
        label = f"M {mtbi / 60:g} h" if mtbi >= 60 else f"M {mtbi:g} min"
        out.append(RowResult(
            "reliability", f"D-{label}", "Daly optimum interval (reliability-power.md §3)",
            f"{label}, R 10 min, δ 5 min", f"{daly:g} min (numeric {numeric:g})",
            f"{tau:.1f} min", f"{err:+.2f} min", err, C.DALY_TOLERANCE_MIN,
            f"±{C.DALY_TOLERANCE_MIN:g} min", "gated",
            _status("gated", abs(err) <= C.DALY_TOLERANCE_MIN),
            source="Daly 2006, FGCS 22(3) (P); numeric check (D)"))
    for r_f, gpus, expected, tau_pub in C.ETTR_TABLE:
        mtbi = 24 * 60 * 1000 / (gpus / 8 * r_f)
        for (delta, restart), exp in zip(C.ETTR_SCENARIOS, expected):
            tau = daly_interval(delta, mtbi)
            ettr = daly_efficiency(tau, delta, restart, mtbi)
            err = ettr - exp
            note = ""
            if tau_pub is not None and delta == 0.1:
                note = f"τ {tau:.1f} min (table {tau_pub:g})"
                if abs(tau - tau_pub) > C.TAU_TOLERANCE_MIN:
                    err = max(err, tau - tau_pub, key=abs)
            out.append(RowResult(
                "reliability", f"E-{r_f:g}-{gpus}-{delta:g}",
                "ETTR worked table, Daly-exact at the optimum (reliability-power.md §4)",
                f"r_f {r_f:g}, {gpus:,} GPUs, δ {delta:g} / R {restart:g} min",
                f"{exp:.3f}", f"{ettr:.3f}", f"{err:+.3f}", err, C.ETTR_TOLERANCE,
                f"±{C.ETTR_TOLERANCE:g}", "gated",
                _status("gated", abs(err) <= C.ETTR_TOLERANCE), note,
                "reliability-power.md §4 worked table (D)"))
    for label, gpus, r_f, u0, interval, expected, tol in C.KOKOLIS_ROWS:
        mtbi = 24 * 60 * 1000 / (gpus / 8 * r_f)
        ettr = first_order_ettr(interval, 0.0, u0, mtbi)
        err = ettr - expected
        out.append(RowResult(
            "reliability", f"K-{gpus}-{interval:g}-{r_f:g}",
            "Kokolis first-order ETTR check (reliability-power.md §4)", label,
            f"{expected:g}", f"{ettr:.3f}", f"{err:+.3f}", err, tol, f"±{tol:g}", "gated",
            _status("gated", abs(err) <= tol),
            source="Kokolis et al. HPCA'25 (S, closed form re-typed); §4 check (D)"))
    return out


# ------------------------------------------------------------------------------------------


def run_all(only_perf: set[str] | None = None) -> list[RowResult]:
    with tempfile.TemporaryDirectory(prefix="cluster-designer-validation-") as tmp:
        folder = Path(tmp)
        rows = run_performance(folder, only_perf)
        if only_perf is None:
            rows += run_topology(folder)
            rows += run_power(folder)
            from .cost_suite import run_cost  # it builds on this module's rows and CLI path
            rows += run_cost(folder)
            rows += run_reliability()
            from .fabric_suite import run_fabric  # it builds on this module's RowResult
            rows += run_fabric()
            from .moe_suite import run_moe  # both build on this module's rows and CLI path
            from .serving_suite import run_serving
            rows += run_moe(folder)
            from .memory_suite import run_memory
            rows += run_memory(folder)
            rows += run_serving(folder)
    return rows


def mfu_summary(rows: list[RowResult]) -> dict:
    """Mean absolute utilisation error (points) over the gated dense rows compared by MFU/HFU."""
    gated, all_rows = [], []
    for r in rows:
        if r.section != "performance" or r.policy in ("report-only", "not-modelled"):
            continue
        err = r.extra.get("util_err")
        if err is None:
            continue
        case = r.extra["case"]
        if case.compare != "util":
            continue
        all_rows.append(abs(err))
        if r.policy == "gated":
            gated.append(abs(err))
    mean = lambda xs: sum(xs) / len(xs) if xs else 0.0  # noqa: E731
    return {"gated_rows": len(gated), "gated_mean_pt": 100 * mean(gated),
            "all_rows": len(all_rows), "all_mean_pt": 100 * mean(all_rows)}
