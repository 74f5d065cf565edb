"""Side-by-side comparison of evaluations: headline metrics, deltas against the first design,
better/worse marks and one sentence per design.

Works on evaluation JSON dicts (``evaluation_to_json``, format ``cluster-designer.evaluation/1``)
rather than on ``Evaluation`` objects, so a saved evaluation compares like a fresh one and any
section an analysis adds later (``cost``, ``inference``) is compared as soon as its keys are
listed in ``METRICS``: a metric absent from every design is left out, a metric absent or null in
one design is "n/a" for that design, never a number. The inference services of designs with
several workloads are compared by name: each service's serving metrics, "n/a" in a design
without a service of that name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from core.errors import ProjectFileError
from core.evaluate import EVALUATION_FORMAT
from core.jsonfile import read_json
from core.model import Design
from core.project import load_project

COMPARISON_FORMAT = "cluster-designer.comparison/1"

HIGHER, LOWER, NEITHER = "higher", "lower", "neither"
BETTER, WORSE, EQUAL, DIFFERENT, NOT_AVAILABLE = "better", "worse", "equal", "different", "n/a"

# Two values this close are the same result computed twice (float noise), not a difference.
EQUAL_REL_TOLERANCE = 1e-9
# Differences smaller than this are not called wins or losses in the one-line summaries: an
# analytical model is not that precise, and a sentence full of 0.1% changes hides the real ones.
SUMMARY_MIN_RELATIVE = 0.005
SUMMARY_WINS, SUMMARY_LOSSES = 3, 3


@dataclass(frozen=True)
class Metric:
    """One compared metric. ``noun`` and ``up``/``down`` make the summary's words ("23% more
    bisection bandwidth", "9% shorter training"); ``theme`` groups metrics that move together
    (IT and facility power) so a summary names each theme once."""

    section: str
    key: str
    label: str
    unit: str
    direction: str
    noun: str = ""
    up: str = "more"
    down: str = "less"
    theme: str = ""
    service: str = ""  # a service's serving metric: its name (section "services.<name>")

    @property
    def path(self) -> str:
        return f"{self.section}.{self.key}"

    @property
    def title(self) -> str:
        """The report section it is shown in ("Bandwidth", "Service chat")."""
        return f"Service {self.service}" if self.service else self.section.capitalize()


def _m(section, key, label, unit, direction, noun="", up="more", down="less", theme=""):
    # The label reads as the noun once its first letter is lowercased (acronyms such as GPU stay).
    return Metric(section, key, label, unit, direction, noun or label[0].lower() + label[1:], up, down,
                  theme or key)


# The headline metrics, in report order. Units follow the key names of the evaluation contract;
# "fraction" values (MFU, ETTR) are shown as percentages by the renderers.
METRICS: tuple[Metric, ...] = (
    _m("counts", "gpus", "GPUs", "GPUs", NEITHER),
    _m("counts", "servers", "Servers / super-nodes", "count", NEITHER),
    _m("counts", "switches", "Scale-out switches", "count", NEITHER),
    _m("counts", "scale_up_switches", "Scale-up switch chips", "count", NEITHER),
    _m("counts", "nics", "NICs", "count", NEITHER),
    _m("counts", "dpus", "DPUs", "count", NEITHER),
    _m("counts", "storage_nodes", "Storage nodes", "count", NEITHER),
    _m("counts", "links", "Links", "count", NEITHER),
    _m("counts", "cables", "Cables", "count", NEITHER),
    _m("counts", "transceivers", "Transceivers", "count", NEITHER),
    _m("bandwidth", "scale_up_domain_gpus", "Scale-up domain", "GPUs", HIGHER,
       "GPUs per scale-up domain", "more", "fewer"),
    _m("bandwidth", "per_gpu_scale_up_gbyte_s", "Scale-up bandwidth per GPU", "GB/s", HIGHER),
    _m("bandwidth", "per_gpu_scale_out_gbit_s", "Scale-out bandwidth per GPU", "Gb/s", HIGHER),
    _m("bandwidth", "bisection_tbit_s", "Bisection bandwidth", "Tb/s", HIGHER),
    _m("bandwidth", "allreduce_busbw_gbyte_s", "All-reduce bus bandwidth", "GB/s", HIGHER),
    _m("bandwidth", "alltoall_per_gpu_gbyte_s", "All-to-all bandwidth per GPU", "GB/s", HIGHER),
    _m("bandwidth", "storage_read_gbyte_s", "Storage read bandwidth", "GB/s", HIGHER,
       theme="storage"),
    _m("bandwidth", "storage_write_gbyte_s", "Storage write bandwidth", "GB/s", HIGHER,
       theme="storage"),
    _m("latency", "max_switch_hops", "Max switch hops", "hops", LOWER,
       "switch hops", "more", "fewer", "latency"),
    _m("latency", "gpu_to_gpu_max_us", "GPU-to-GPU latency, max", "us", LOWER,
       "worst-case GPU-to-GPU latency", "higher", "lower", "latency"),
    _m("latency", "gpu_to_gpu_mean_us", "GPU-to-GPU latency, mean", "us", LOWER,
       "mean GPU-to-GPU latency", "higher", "lower", "latency"),
    _m("latency", "allreduce_small_us", "Small all-reduce latency", "us", LOWER,
       "small all-reduce latency", "higher", "lower"),
    _m("power", "it_kw", "IT power", "kW", LOWER, "power", theme="power"),
    _m("power", "facility_kw", "Facility power", "kW", LOWER, "facility power", theme="power"),
    _m("power", "pue", "PUE", "ratio", LOWER, "PUE", "higher", "lower"),
    _m("power", "max_rack_kw", "Max rack power", "kW", LOWER, "rack power density", "higher", "lower"),
    _m("power", "network_kw", "Network power", "kW", LOWER),
    _m("power", "energy_mwh_facility", "Training energy (facility)", "MWh", LOWER,
       "training energy", theme="energy"),
    _m("power", "energy_cost_usd", "Training energy cost", "USD", LOWER,
       "energy cost", theme="energy"),
    _m("power", "co2_t", "Training CO2", "t", LOWER, "CO2", theme="energy"),
    _m("reliability", "interruptions_per_day", "Interruptions per day", "per day", LOWER,
       "interruptions", theme="interruptions"),
    _m("reliability", "mtbi_hours", "Mean time between interruptions", "h", HIGHER,
       "time between interruptions", "longer", "shorter", "interruptions"),
    _m("reliability", "checkpoint_write_s", "Checkpoint write", "s", LOWER,
       "checkpoint write time", "longer", "shorter"),
    _m("reliability", "checkpoint_restore_s", "Checkpoint restore", "s", LOWER,
       "checkpoint restore time", "longer", "shorter"),
    _m("reliability", "checkpoint_interval_min", "Checkpoint interval", "min", NEITHER),
    _m("reliability", "ettr", "Effective training time ratio", "fraction", HIGHER,
       "effective training time"),
    _m("reliability", "single_points_of_failure", "Single points of failure", "count", LOWER,
       "single points of failure", "more", "fewer"),
    _m("performance", "job_gpus", "GPUs used by the job", "GPUs", NEITHER),
    _m("performance", "mfu", "MFU", "fraction", HIGHER, "MFU", "higher", "lower", "speed"),
    _m("performance", "tflops_per_gpu", "Achieved TFLOP/s per GPU", "TFLOP/s", HIGHER,
       "TFLOP/s per GPU", "more", "fewer", "speed"),
    _m("performance", "step_time_s", "Step time", "s", LOWER, "step time", "longer", "shorter", "speed"),
    _m("performance", "tokens_per_s", "Training throughput", "tokens/s", HIGHER,
       "training throughput", "higher", "lower", "speed"),
    _m("performance", "training_days", "Training time", "days", LOWER,
       "training", "slower", "faster", "time"),
    _m("performance", "memory_per_gpu_gb", "Memory per GPU", "GB", NEITHER),
    _m("cost", "hardware_capex_usd", "Hardware capex", "USD", LOWER, "hardware cost", theme="capex"),
    _m("cost", "facility_capex_usd", "Facility capex", "USD", LOWER, "facility cost", theme="capex"),
    _m("cost", "capex_usd", "Capex", "USD", LOWER, "capex", theme="capex"),
    _m("cost", "opex_usd_per_year", "Opex per year", "USD/year", LOWER, "opex", theme="opex"),
    _m("cost", "tco_usd_per_year", "TCO per year", "USD/year", LOWER, "TCO", theme="tco"),
    _m("cost", "usd_per_gpu_hour", "Cost per GPU-hour", "USD/GPU-hour", LOWER,
       "cost per GPU-hour", "higher", "lower", "unit-cost"),
    # the delivered GPU-hour: the owning one over utilisation x the job's ETTR
    _m("cost", "usd_per_delivered_gpu_hour", "Cost per delivered GPU-hour", "USD/GPU-hour", LOWER,
       "cost per delivered GPU-hour", "higher", "lower", "unit-cost"),
    # the method's inputs, so a comparison shows when two designs were costed differently
    _m("cost", "utilization", "Utilisation (allocated)", "fraction", NEITHER),
    _m("cost", "hardware_depreciation_years", "Server life", "years", NEITHER),
    _m("cost", "facility_depreciation_years", "Facility life (shell and plant)", "years", NEITHER),
    _m("cost", "wacc", "Cost of capital (WACC)", "fraction", NEITHER),
    _m("cost", "training_run_usd", "Training run cost", "USD", LOWER, "run cost", theme="run-cost"),
    _m("cost", "usd_per_million_tokens_trained", "Cost per million tokens trained", "USD/Mtoken",
       LOWER, "cost per token", "higher", "lower", "run-cost"),
    _m("inference", "prefill_tokens_per_s_per_gpu", "Prefill per GPU", "tokens/s", HIGHER,
       "prefill throughput", "higher", "lower"),
    _m("inference", "decode_tokens_per_s_per_gpu", "Decode per GPU", "tokens/s", HIGHER,
       "decode throughput", "higher", "lower"),
    # Served output counts the GPU time prefill takes from decode: what a request is billed on.
    _m("inference", "output_tokens_per_s_per_gpu", "Served output per GPU", "tokens/s", HIGHER,
       "served output per GPU", theme="served-output"),
    _m("inference", "ttft_ms", "Time to first token", "ms", LOWER, "time to first token",
       "longer", "shorter"),
    _m("inference", "tpot_ms", "Time per output token", "ms", LOWER, "time per output token",
       "longer", "shorter"),
    _m("inference", "tokens_per_s_per_mw", "Tokens per second per MW", "tokens/s/MW", HIGHER,
       "tokens per MW", "more", "fewer"),
    # Whole copies of the deployment on the design's (or the partition's) GPUs: per GPU and
    # design size together, so a bigger design that serves no more says so.
    _m("inference", "design_output_tokens_per_s", "Output of the design", "tokens/s", HIGHER,
       "served output of the design", theme="served-output"),
    _m("inference", "usd_per_million_output_tokens", "Cost per million output tokens", "USD/Mtoken",
       LOWER, "cost per output token", "higher", "lower", "serving-cost"),
)
# ``inference.meets_slo`` (true/false) is not a metric here: a comparison's values are numbers
# with a delta and a percentage against the first design, which a yes/no has not. The sweep
# results carry it as a column of its own (core/sweep/results.py), and a design that misses
# its SLOs shows it in the TTFT and TPOT deltas and in its report.

# Headline figures named in the baseline's own sentence, when present.
BASELINE_HEADLINE = ("counts.gpus", "bandwidth.bisection_tbit_s", "power.facility_kw",
                     "performance.mfu", "performance.training_days", "cost.capex_usd")


@dataclass(frozen=True)
class Delta:
    """One metric of one design against the first: ``absolute`` and ``relative`` (a fraction of
    the first design's value) are None when either value is missing, or (relative only) when the
    first design's value is 0 and this one's is not."""

    absolute: float | None
    relative: float | None
    better: str

    def to_json(self) -> dict[str, Any]:
        return {"absolute": self.absolute, "relative": self.relative, "better": self.better}


@dataclass(frozen=True)
class Comparison:
    names: tuple[str, ...]
    evaluations: tuple[dict, ...]
    metrics: tuple[Metric, ...]
    values: tuple[tuple[float | None, ...], ...]  # values[metric index][design index]
    deltas: tuple[tuple[Delta, ...], ...]  # deltas[design index - 1][metric index]
    summary: tuple[str, ...]  # one sentence per design, the first describing the baseline
    # per design: buildable as drawn (no error-severity warning), None where not known
    valid: tuple[bool | None, ...] = ()


def design_validity(evaluation: dict) -> bool | None:
    """Whether a design evaluated valid: its ``valid`` key, else (an evaluation saved before
    the key existed) whether any warning is an error; None when neither is there to read."""
    valid = evaluation.get("valid")
    if isinstance(valid, bool):
        return valid
    warnings = evaluation.get("warnings")
    if not isinstance(warnings, list):
        return None
    return not any(isinstance(w, dict) and w.get("severity") == "error" for w in warnings)


def _section(evaluation: dict, metric: Metric) -> Any:
    """The dict that holds the metric's key: the evaluation's section, or the ``inference``
    section of its service of that name (None when absent)."""
    if not metric.service:
        return evaluation.get(metric.section)
    services = evaluation.get("services")
    for service in services if isinstance(services, list) else ():
        if isinstance(service, dict) and service.get("name") == metric.service:
            return service.get("inference")
    return None


def service_metrics(evaluations: list[dict]) -> tuple[Metric, ...]:
    """The serving metrics of every service name in the evaluations (in order of first
    appearance), each under its service's section."""
    names = dict.fromkeys(
        service["name"] for ev in evaluations
        for service in (ev.get("services") if isinstance(ev.get("services"), list) else ())
        if isinstance(service, dict) and isinstance(service.get("name"), str))
    return tuple(replace(m, section=f"services.{name}", service=name, noun=f"{m.noun} of {name}",
                         theme=f"services.{name}.{m.theme}")
                 for name in names for m in METRICS if m.section == "inference")


def metric_value(evaluation: dict, metric: Metric) -> float | None:
    """The metric's number in one evaluation: None when its section or key is absent, null,
    not a number (a bool is not a metric) or not finite."""
    section = _section(evaluation, metric)
    value = section.get(metric.key) if isinstance(section, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def _present(evaluations: list[dict], metric: Metric) -> bool:
    return any(isinstance(section, dict) and metric.key in section
               for section in (_section(ev, metric) for ev in evaluations))


def delta(base: float | None, value: float | None, direction: str) -> Delta:
    """``value`` against ``base`` for a metric whose better side is ``direction``."""
    if base is None or value is None:
        return Delta(None, None, NOT_AVAILABLE)
    absolute = value - base
    if not math.isfinite(absolute):  # two huge values of opposite sign
        return Delta(None, None, NOT_AVAILABLE)
    if math.isclose(value, base, rel_tol=EQUAL_REL_TOLERANCE, abs_tol=0.0):
        return Delta(absolute, absolute / abs(base) if base else 0.0, EQUAL)
    relative = absolute / abs(base) if base else None
    if relative is not None and not math.isfinite(relative):
        relative = None
    if direction == NEITHER:
        better = DIFFERENT
    else:
        better = BETTER if (absolute > 0) == (direction == HIGHER) else WORSE
    return Delta(absolute, relative, better)


def compare_evaluations(evaluations: list[dict], names: list[str]) -> Comparison:
    """Every metric of ``METRICS`` present in at least one evaluation, each design after the
    first against the first. Needs two or more evaluations and one name each."""
    if len(evaluations) != len(names):
        raise ValueError(f"{len(evaluations)} evaluations but {len(names)} names")
    if len(evaluations) < 2:
        raise ValueError("a comparison needs at least two evaluations")
    metrics = tuple(m for m in (*METRICS, *service_metrics(evaluations)) if _present(evaluations, m))
    values = tuple(tuple(metric_value(ev, m) for ev in evaluations) for m in metrics)
    deltas = tuple(
        tuple(delta(row[0], row[j], m.direction) for m, row in zip(metrics, values))
        for j in range(1, len(evaluations))
    )
    summary = (_baseline_sentence(names[0], metrics, [row[0] for row in values]),) + tuple(
        _design_sentence(names[j], names[0], metrics, deltas[j - 1],
                         [row[0] is not None or row[j] is not None for row in values],
                         _workload_name(evaluations[j]), _workload_name(evaluations[0]),
                         fabric_clause(evaluations[j], evaluations[0], names[0]))
        for j in range(1, len(evaluations))
    )
    valid = tuple(design_validity(ev) for ev in evaluations)
    # an invalid design's sentence says so first: its figures are not a buildable design's
    summary = tuple(f"{name} is NOT VALID (cannot be built or run as drawn): {sentence}"
                    if ok is False else sentence for name, ok, sentence in zip(names, valid, summary))
    return Comparison(tuple(names), tuple(evaluations), metrics, values, deltas, summary, valid)


def format_value(value: float | None, unit: str) -> str:
    """A value for people: thousands separators, fractions as percentages, "n/a" for None."""
    if value is None:
        return "n/a"
    if unit == "fraction":
        return f"{value * 100:.1f}%"
    if isinstance(value, int) or float(value).is_integer() and abs(value) >= 1:
        text = f"{value:,.0f}"
    elif abs(value) >= 1000:
        text = f"{value:,.0f}"
    elif abs(value) >= 100:
        text = f"{value:.1f}"
    elif abs(value) >= 1:
        text = f"{value:,.2f}"
    else:
        text = f"{value:.3g}"
    if unit == "USD":
        return f"${text}"
    return text if unit in ("count", "ratio") else f"{text} {unit}"


def format_percent(relative: float) -> str:
    percent = abs(relative) * 100
    if percent >= 10:
        return f"{percent:.0f}%"
    return f"{percent:.1f}%" if percent >= 1 else f"{percent:.2g}%"


def _phrase(metric: Metric, d: Delta) -> str:
    word = metric.up if d.absolute > 0 else metric.down
    return f"{format_percent(d.relative)} {word} {metric.noun}"


def _strongest_by_theme(pairs: list[tuple[Metric, Delta]], limit: int) -> list[tuple[Metric, Delta]]:
    """The largest relative change of each theme, the ``limit`` largest themes first."""
    best: dict[str, tuple[Metric, Delta]] = {}
    for metric, d in pairs:
        kept = best.get(metric.theme)
        if kept is None or abs(d.relative) > abs(kept[1].relative):
            best[metric.theme] = (metric, d)
    return sorted(best.values(), key=lambda p: -abs(p[1].relative))[:limit]


def _join(phrases: list[str]) -> str:
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def _fabric(evaluation: dict) -> tuple[str | None, str, tuple[str, float] | None]:
    """(load balancing, in-network reduction, (tier, all-to-all fraction) of its worst tier)."""
    b = evaluation.get("bandwidth") or {}
    fractions = b.get("effective_fraction_by_tier") or {}
    worst = min(((tier, f.get("alltoall", 1.0)) for tier, f in fractions.items()),
                key=lambda p: p[1], default=None)
    return b.get("load_balancing"), b.get("in_network_reduction") or "none", worst


def fabric_clause(evaluation: dict, base: dict, base_name: str) -> str:
    """"flowlet load balancing instead of adaptive (all-to-all at 70% of line rate on the spine
    tier)": how the fabric's behaviour differs from the baseline's, or "" when it does not."""
    mode, reduction, worst = _fabric(evaluation)
    base_mode, base_reduction, _ = _fabric(base)
    parts = []
    if mode and base_mode and mode != base_mode:
        text = f"{mode} load balancing instead of {base_name}'s {base_mode}"
        if worst is not None and worst[1] < 0.995:
            text += f" (all-to-all at {worst[1]:.0%} of line rate on the {worst[0]} tier)"
        parts.append(text)
    if reduction != base_reduction:
        parts.append(f"in-network reduction {reduction} instead of {base_reduction}")
    return "; ".join(parts)


def _design_sentence(name: str, base_name: str, metrics: tuple[Metric, ...],
                     deltas: tuple[Delta, ...], either_has_value: list[bool],
                     workload: str, base_workload: str, fabric: str = "") -> str:
    """"B: 23% more bisection bandwidth and 9% faster training, at 14% more power" - the largest
    relative wins and losses against the first design, one per theme; then what changed from
    zero, and what has a value in only one of the two (a job that cannot run on one)."""
    def significant(mark):
        return [(m, d) for m, d in zip(metrics, deltas) if d.better == mark
                and d.relative is not None and abs(d.relative) >= SUMMARY_MIN_RELATIVE]

    wins = [_phrase(m, d) for m, d in _strongest_by_theme(significant(BETTER), SUMMARY_WINS)]
    losses = [_phrase(m, d) for m, d in _strongest_by_theme(significant(WORSE), SUMMARY_LOSSES)]
    # A change from zero (no storage at all in the first design) has no percentage: say it plainly.
    unmeasured = [m for m, d in zip(metrics, deltas) if d.better in (BETTER, WORSE) and d.relative is None]
    missing = [m for m, d, known in zip(metrics, deltas, either_has_value)
               if d.better == NOT_AVAILABLE and known and m.direction != NEITHER]
    if wins and losses:
        text = f"{name}: {_join(wins)}, at {_join(losses)} than {base_name}"
    elif wins:
        text = (f"{name}: {_join(wins)} than {base_name}, and nothing worse by "
                f"{format_percent(SUMMARY_MIN_RELATIVE)} or more")
    elif losses:
        text = (f"{name}: nothing better than {base_name} by {format_percent(SUMMARY_MIN_RELATIVE)} "
                f"or more; {_join(losses)}")
    elif all(d.better in (EQUAL, NOT_AVAILABLE) for d in deltas):
        text = f"{name}: the same as {base_name} on every headline metric"
    else:
        text = (f"{name}: no headline metric better or worse than {base_name} by "
                f"{format_percent(SUMMARY_MIN_RELATIVE)} or more")
    if unmeasured:
        text += f"; {_join([m.noun for m in unmeasured[:3]])} changed from zero"
    if missing:
        text += f"; no value to compare for {_join([m.noun for m in missing[:3]])}"
    # Without a workload there is no checkpoint to write, so reliability and energy differ for
    # that reason alone: the sentence must not let it pass as a property of the fabric.
    if workload != base_workload:
        text += f"; it runs {workload}, {base_name} runs {base_workload}"
    if fabric:
        text += f"; {fabric}"
    return text + "."


def _workload_name(evaluation: dict) -> str:
    workload = evaluation.get("workload")
    return str(workload.get("name") or "an unnamed workload") if isinstance(workload, dict) else "no workload"


def _baseline_sentence(name: str, metrics: tuple[Metric, ...], values: list[float | None]) -> str:
    """"A (baseline): 8,192 GPUs, bisection bandwidth 409.6 Tb/s, ..." - its headline figures."""
    by_path = {m.path: (m, v) for m, v in zip(metrics, values)}
    parts = [f"{m.noun} {format_value(v, m.unit)}" if m.unit != "GPUs" else format_value(v, m.unit)
             for path in BASELINE_HEADLINE if path in by_path
             for m, v in [by_path[path]] if v is not None]
    return f"{name} (baseline)" + (": " + ", ".join(parts) if parts else "") + "."


def comparison_to_json(comparison: Comparison, paths: list[str] | None = None) -> dict[str, Any]:
    """The comparison JSON: format id, names (and paths), the metric table, the deltas of each
    design after the first, one sentence per design, and every design's full evaluation JSON."""
    out: dict[str, Any] = {"format": COMPARISON_FORMAT, "names": list(comparison.names)}
    if paths is not None:
        out["paths"] = list(paths)
    out["baseline"] = comparison.names[0]
    out["valid"] = list(comparison.valid)
    out["metrics"] = [
        {"path": m.path, "section": m.section, "key": m.key, "label": m.label, "unit": m.unit,
         "direction": m.direction, "values": list(row)}
        for m, row in zip(comparison.metrics, comparison.values)
    ]
    out["deltas"] = [
        {"design": comparison.names[j + 1], "against": comparison.names[0],
         "metrics": {m.path: d.to_json() for m, d in zip(comparison.metrics, row)}}
        for j, row in enumerate(comparison.deltas)
    ]
    out["summary"] = list(comparison.summary)
    out["designs"] = list(comparison.evaluations)
    return out


def read_comparable(path: str | Path, catalog: Any = None) -> Design | dict:
    """What ``path`` holds to compare: a project (a Design, to evaluate) or an evaluation saved
    earlier (``evaluate --format json -o``; its JSON dict, compared as it is). The file is read
    a second time only when it is not a project; a file that is neither raises the project
    loader's one-line error naming it."""
    try:
        return load_project(path, catalog)
    except ProjectFileError:
        raw = read_json(path, ProjectFileError, "project")
        if isinstance(raw, dict) and raw.get("format") == EVALUATION_FORMAT:
            return raw
        raise
