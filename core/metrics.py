"""Every headline metric, defined once: its JSON path in the evaluation JSON (DESIGN.md's
contract), label, unit, display digits, better direction, the tolerance within which two values
are the same result, the workload kinds it applies to and a one-line explanation.

compare.py compares these (and a service's serving metrics per service name), the sweep writes
them as columns and takes them as ``--objectives``, the report and the GUI panels take their
labels, digits and tooltips from them. Adding a metric is one entry here plus its computation
(the analysis that fills the evaluation JSON's key).

A metric's ``label`` is its name in compare and the sweep; ``report_label`` and ``panel_label``
are how the report table and the GUI panels word it where they say it shorter or with a
qualifier ("Bisection", "Small all-reduce (8 B, all GPUs)"); ``panel_labels`` holds the rare
panel that words it its own way ("Checkpoint persisted after" in Storage).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

HIGHER, LOWER, NEITHER = "higher", "lower", "neither"
# The workload kinds a metric applies to: a design without a workload, a training run, a served
# inference workload. A metric outside a design's kind is absent or null in its evaluation JSON.
NONE, TRAINING, INFERENCE = "none", "training", "inference"
ALL_KINDS = (NONE, TRAINING, INFERENCE)

# Two values within this of each other are the same result (float noise and model precision, far
# below anything a report shows): compare calls them "equal", never better or worse. An analytical
# model is not precise to 0.01%; a -0.00004% change in small all-reduce latency is no win.
REL_TOL = 1e-4
# Units shown beside a value ("" for none); others are shown as they are.
SYMBOLS = {"us": "µs", "count": "", "ratio": "", "fraction": "%", "USD": "USD"}


@dataclass(frozen=True)
class Metric:
    """One metric. ``noun`` and ``up``/``down`` make compare's summary words ("23% more bisection
    bandwidth", "9% shorter training"); ``theme`` groups metrics that move together (IT and
    facility power) so a summary names each theme once; ``service``: a service's serving metric
    (section "services.<name>")."""

    section: str
    key: str
    label: str
    unit: str
    direction: str
    digits: int = 1
    explain: str = ""
    kinds: tuple[str, ...] = ALL_KINDS
    rel_tol: float = REL_TOL
    abs_tol: float = 0.0
    noun: str = ""
    up: str = "more"
    down: str = "less"
    theme: str = ""
    report_label: str = ""
    panel_label: str = ""
    panel_labels: tuple[tuple[str, str], ...] = ()  # (panel title, its label) where it differs
    service: str = ""

    @property
    def path(self) -> str:
        """Its id: the JSON path of its value in the evaluation JSON."""
        return f"{self.section}.{self.key}"

    @property
    def title(self) -> str:
        """The report section it is shown in ("Bandwidth", "Service chat")."""
        return f"Service {self.service}" if self.service else self.section.capitalize()

    @property
    def symbol(self) -> str:
        """The unit shown beside a value ("µs", "" for a count)."""
        return SYMBOLS.get(self.unit, self.unit)

    @property
    def in_report(self) -> str:
        return self.report_label or self.label

    def in_panel(self, panel: str = "") -> str:
        """Its row label in the GUI panel titled ``panel``."""
        return dict(self.panel_labels).get(panel) or self.panel_label or self.label

    def equal(self, a: float, b: float) -> bool:
        """Whether two values are the same result within the metric's tolerance."""
        return math.isclose(a, b, rel_tol=self.rel_tol, abs_tol=self.abs_tol)


def _m(path, label, unit, direction, digits=1, explain="", noun="", up="more", down="less", theme="",
       **more) -> Metric:
    section, _, key = path.partition(".")
    # The label reads as the noun once its first letter is lowercased (acronyms such as GPU stay).
    return Metric(section, key, label, unit, direction, digits, explain,
                  noun=noun or label[0].lower() + label[1:], up=up, down=down, theme=theme or key, **more)


EXACT = {"rel_tol": 0.0}  # whole numbers: one more is a difference
FABRIC_ONLY = (NONE, TRAINING, INFERENCE)
TRAINING_ONLY = (TRAINING,)
SERVING_ONLY = (INFERENCE,)

# In report order. Units follow the key names of the evaluation contract; "fraction" values
# (MFU, ETTR) are shown as percentages.
COUNTS = (
    _m("counts.gpus", "GPUs", "GPUs", NEITHER, 0, "Accelerators in the design", **EXACT),
    _m("counts.servers", "Servers / super-nodes", "count", NEITHER, 0,
       "Compute servers and rack-scale super-nodes", **EXACT),
    _m("counts.switches", "Scale-out switches", "count", NEITHER, 0,
       "Switches of the scale-out (and storage) fabric, every tier", **EXACT),
    _m("counts.scale_up_switches", "Scale-up switch chips", "count", NEITHER, 0,
       "NVLink-class switch chips inside the scale-up domains", **EXACT),
    _m("counts.nics", "NICs", "count", NEITHER, 0, "Network adapters of the compute and storage nodes", **EXACT),
    _m("counts.dpus", "DPUs", "count", NEITHER, 0, "Data-processing units (BlueField-class adapters)", **EXACT),
    _m("counts.storage_nodes", "Storage nodes", "count", NEITHER, 0, "Storage appliances or servers", **EXACT),
    _m("counts.links", "Links", "count", NEITHER, 0, "Point-to-point links, both ends counted once", **EXACT),
    _m("counts.cables", "Cables", "count", NEITHER, 0, "Physical cables, copper and optical", **EXACT),
    _m("counts.transceivers", "Transceivers", "count", NEITHER, 0, "Optical modules at the ends of optical links",
       **EXACT),
)

BANDWIDTH = (
    _m("bandwidth.scale_up_domain_gpus", "Scale-up domain", "GPUs", HIGHER, 0,
       "GPUs that reach each other over the scale-up fabric (NVLink domain)",
       "GPUs per scale-up domain", "more", "fewer", **EXACT),
    _m("bandwidth.per_gpu_scale_up_gbyte_s", "Scale-up bandwidth per GPU", "GB/s", HIGHER, 0,
       "Each GPU's scale-up bandwidth, per direction", report_label="Per-GPU scale-up",
       panel_label="Per-GPU scale-up"),
    _m("bandwidth.per_gpu_scale_out_gbit_s", "Scale-out bandwidth per GPU", "Gb/s", HIGHER, 0,
       "Each GPU's share of its server's scale-out NICs, per direction", report_label="Per-GPU scale-out",
       panel_label="Per-GPU scale-out"),
    _m("bandwidth.bisection_tbit_s", "Bisection bandwidth", "Tb/s", HIGHER, 1,
       "Bandwidth between two equal halves of the GPUs over the scale-out fabric",
       report_label="Bisection", panel_label="Bisection"),
    _m("bandwidth.allreduce_busbw_gbyte_s", "All-reduce bus bandwidth", "GB/s", HIGHER, 0,
       "Bus bandwidth of a large all-reduce over every GPU (as nccl-tests reports it)",
       report_label="All-reduce bus bandwidth (all GPUs)"),
    _m("bandwidth.alltoall_per_gpu_gbyte_s", "All-to-all bandwidth per GPU", "GB/s", HIGHER, 1,
       "What each GPU sends per second in an all-to-all over every GPU (MoE dispatch)",
       report_label="All-to-all per GPU", panel_label="All-to-all per GPU"),
    _m("bandwidth.storage_read_gbyte_s", "Storage read bandwidth", "GB/s", HIGHER, 0,
       "Storage read bandwidth the compute nodes can reach, the slowest stage of the path",
       theme="storage", report_label="Storage read reachable", panel_label="Storage read"),
    _m("bandwidth.storage_write_gbyte_s", "Storage write bandwidth", "GB/s", HIGHER, 0,
       "Storage write bandwidth the compute nodes can reach, the slowest stage of the path",
       theme="storage", panel_label="Storage write"),
)

LATENCY = (
    _m("latency.max_switch_hops", "Max switch hops", "hops", LOWER, 0,
       "Switches on the longest shortest path between two GPUs", "switch hops", "more", "fewer", "latency",
       **EXACT),
    _m("latency.gpu_to_gpu_max_us", "GPU-to-GPU latency, max", "us", LOWER, 2,
       "One-way latency of the farthest pair of GPUs (NIC, cables, switches)",
       "worst-case GPU-to-GPU latency", "higher", "lower", "latency",
       report_label="GPU-to-GPU max", panel_label="GPU-to-GPU max", abs_tol=1e-3),
    _m("latency.gpu_to_gpu_mean_us", "GPU-to-GPU latency, mean", "us", LOWER, 2,
       "One-way latency between two GPUs, averaged over every pair",
       "mean GPU-to-GPU latency", "higher", "lower", "latency",
       report_label="GPU-to-GPU mean", panel_label="GPU-to-GPU mean", abs_tol=1e-3),
    _m("latency.allreduce_small_us", "Small all-reduce latency", "us", LOWER, 1,
       "Time of an 8-byte all-reduce over every GPU: the latency term of every collective",
       "small all-reduce latency", "higher", "lower",
       report_label="Small all-reduce (8 B, all GPUs)", panel_label="Small all-reduce (all GPUs)", abs_tol=1e-3),
)

POWER = (
    _m("power.it_kw", "IT power", "kW", LOWER, 0,
       "Provisioned IT power: every part at its nameplate draw", "power", theme="power",
       report_label="IT (provisioned, nameplate)", panel_label="IT (nameplate)"),
    _m("power.facility_kw", "Facility power", "kW", LOWER, 0,
       "IT power times PUE: what the site draws from the grid", "facility power", theme="power",
       report_label="Facility", panel_label="Facility"),
    _m("power.pue", "PUE", "ratio", LOWER, 2, "Power usage effectiveness: facility power over IT power",
       "PUE", "higher", "lower"),
    _m("power.max_rack_kw", "Max rack power", "kW", LOWER, 1,
       "IT power of the densest rack, against its cooling's limit", "rack power density", "higher", "lower",
       report_label="Max rack", panel_label="Max rack"),
    _m("power.network_kw", "Network power", "kW", LOWER, 0, "IT power of switches, NICs and optics"),
    _m("power.energy_mwh_facility", "Training energy (facility)", "MWh", LOWER, 0,
       "Facility energy of the whole training run", "training energy", theme="energy", kinds=TRAINING_ONLY,
       report_label="Training-run energy (facility)", panel_label="Energy (facility)"),
    _m("power.energy_cost_usd", "Training energy cost", "USD", LOWER, 0,
       "Electricity cost of the training run at the assumed price", "energy cost", theme="energy",
       kinds=TRAINING_ONLY, report_label="Training-run electricity cost", panel_label="Electricity cost"),
    _m("power.co2_t", "Training CO2", "t", LOWER, 0,
       "CO2 emitted by the training run's energy at the assumed grid intensity", "CO2", theme="energy",
       kinds=TRAINING_ONLY, panel_label="CO₂"),
)

RELIABILITY = (
    _m("reliability.interruptions_per_day", "Interruptions per day", "per day", LOWER, 2,
       "Failures per day that stop the job (a GPU, server, switch or cable it needs)", "interruptions",
       theme="interruptions"),
    _m("reliability.mtbi_hours", "Mean time between interruptions", "h", HIGHER, 1,
       "Hours between two job interruptions", "time between interruptions", "longer", "shorter",
       "interruptions"),
    _m("reliability.checkpoint_write_s", "Checkpoint write", "s", LOWER, 1,
       "Time until a checkpoint is persisted on storage", "checkpoint write time", "longer", "shorter",
       kinds=TRAINING_ONLY, panel_labels=(("Storage", "Checkpoint persisted after"),)),
    _m("reliability.checkpoint_restore_s", "Checkpoint restore", "s", LOWER, 2,
       "Time to read the checkpoint back after a failure", "checkpoint restore time", "longer", "shorter",
       kinds=TRAINING_ONLY),
    _m("reliability.checkpoint_interval_min", "Checkpoint interval", "min", NEITHER, 1,
       "The interval that maximises the effective training time (Young/Daly)", kinds=TRAINING_ONLY,
       report_label="Checkpoint interval (Daly)", panel_label="Checkpoint interval (optimum)"),
    _m("reliability.ettr", "Effective training time ratio", "fraction", HIGHER, 1,
       "Share of wall-clock time spent on useful training (checkpoints, restarts and rework taken out)",
       "effective training time"),
    _m("reliability.single_points_of_failure", "Single points of failure", "count", LOWER, 0,
       "Switch units whose failure alone cuts GPUs off the fabric", "single points of failure", "more", "fewer", **EXACT),
)

PERFORMANCE = (
    _m("performance.job_gpus", "GPUs used by the job", "GPUs", NEITHER, 0,
       "GPUs the training job's layout uses", kinds=TRAINING_ONLY, report_label="Job GPUs",
       panel_label="Job GPUs", **EXACT),
    _m("performance.mfu", "MFU", "fraction", HIGHER, 1,
       "Model FLOPs utilisation: the model's useful FLOP/s over the GPUs' peak", "MFU", "higher", "lower",
       "speed", kinds=TRAINING_ONLY),
    _m("performance.tflops_per_gpu", "Achieved TFLOP/s per GPU", "TFLOP/s", HIGHER, 0,
       "Useful model TFLOP/s each GPU achieves", "TFLOP/s per GPU", "more", "fewer", "speed",
       kinds=TRAINING_ONLY, panel_label="Achieved per GPU"),
    _m("performance.step_time_s", "Step time", "s", LOWER, 2, "Time of one training step (one global batch)",
       "step time", "longer", "shorter", "speed", kinds=TRAINING_ONLY),
    _m("performance.tokens_per_s", "Training throughput", "tokens/s", HIGHER, 0,
       "Training tokens processed per second", "training throughput", "higher", "lower", "speed",
       kinds=TRAINING_ONLY, report_label="Tokens per second", panel_label="Tokens per second"),
    _m("performance.training_days", "Training time", "days", LOWER, 1,
       "Days to train on the workload's tokens, ETTR included", "training", "slower", "faster", "time",
       kinds=TRAINING_ONLY, report_label="Training time (incl. ETTR)", panel_label="Training time (with ETTR)",
       panel_labels=(("Overview", "Training time"),)),
    _m("performance.memory_per_gpu_gb", "Memory per GPU", "GB", NEITHER, 1,
       "HBM the busiest pipeline stage needs per GPU", kinds=TRAINING_ONLY),
)

COST = (
    _m("cost.hardware_capex_usd", "Hardware capex", "USD", LOWER, 0, "Purchase price of every part",
       "hardware cost", theme="capex", panel_label="Hardware"),
    _m("cost.facility_capex_usd", "Facility capex", "USD", LOWER, 0,
       "Building shell and power and cooling plant for the facility power (none when colocated)",
       "facility cost", theme="capex", panel_label="Facility"),
    _m("cost.capex_usd", "Capex", "USD", LOWER, 0, "Hardware and facility capex", "capex", theme="capex",
       panel_label="Total"),
    _m("cost.opex_usd_per_year", "Opex per year", "USD/year", LOWER, 0,
       "Energy, maintenance and colocation per year", "opex", theme="opex", panel_label="Opex"),
    _m("cost.tco_usd_per_year", "TCO per year", "USD/year", LOWER, 0,
       "Yearly capital charge of every part over its life plus opex", "TCO", theme="tco",
       panel_label="TCO (depreciation + opex)"),
    _m("cost.usd_per_gpu_hour", "Cost per GPU-hour", "USD/GPU-hour", LOWER, 2,
       "Owning, fully allocated: TCO per year / (GPUs x 8,760 h)", "cost per GPU-hour", "higher", "lower",
       "unit-cost", report_label="Cost per GPU-hour (owning, fully allocated)", panel_label="Per GPU-hour"),
    # the delivered GPU-hour: the owning one over utilisation x the job's ETTR
    _m("cost.usd_per_delivered_gpu_hour", "Cost per delivered GPU-hour", "USD/GPU-hour", LOWER, 2,
       "Cost per GPU-hour over utilisation times the job's ETTR: what a useful GPU-hour costs",
       "cost per delivered GPU-hour", "higher", "lower", "unit-cost", panel_label="Per delivered GPU-hour"),
    # the method's inputs, so a comparison shows when two designs were costed differently
    _m("cost.utilization", "Utilisation (allocated)", "fraction", NEITHER, 1,
       "Share of GPU-hours allocated to jobs (an assumption of the cost method)"),
    _m("cost.hardware_depreciation_years", "Server life", "years", NEITHER, 1,
       "Years the servers are written off over"),
    _m("cost.facility_depreciation_years", "Facility life (shell and plant)", "years", NEITHER, 1,
       "Years the building shell and plant are written off over"),
    _m("cost.wacc", "Cost of capital (WACC)", "fraction", NEITHER, 1,
       "Weighted average cost of capital: 0 writes off in a straight line, else an annuity"),
    _m("cost.training_run_usd", "Training run cost", "USD", LOWER, 0,
       "The owning cost per GPU-hour x the job's GPUs x its wall-clock hours (failures included)", "run cost", theme="run-cost",
       kinds=TRAINING_ONLY, report_label="Training run", panel_label="Training run"),
    _m("cost.usd_per_million_tokens_trained", "Cost per million tokens trained", "USD/Mtoken", LOWER, 2,
       "Training run cost over the tokens it trains on, per million", "cost per token", "higher", "lower",
       "run-cost", kinds=TRAINING_ONLY, panel_label="Per million tokens trained"),
)

INFERENCE_METRICS = (
    _m("inference.prefill_tokens_per_s_per_gpu", "Prefill per GPU", "tokens/s", HIGHER, 0,
       "Prompt tokens per second of prefill, per GPU of a (prefill-pool) replica", "prefill throughput",
       "higher", "lower", kinds=SERVING_ONLY, report_label="Prefill tokens/s per GPU"),
    _m("inference.decode_tokens_per_s_per_gpu", "Decode per GPU", "tokens/s", HIGHER, 0,
       "Decode steps only (no prefill counted), per GPU of a (decode-pool) replica", "decode throughput",
       "higher", "lower", kinds=SERVING_ONLY, report_label="Decode tokens/s per GPU"),
    # Served output counts the GPU time prefill takes from decode: what a request is billed on.
    _m("inference.output_tokens_per_s_per_gpu", "Served output per GPU", "tokens/s", HIGHER, 0,
       "Output tokens served per second per GPU, each request's prefill counted", "served output per GPU",
       theme="served-output", kinds=SERVING_ONLY, report_label="Output tokens/s per GPU"),
    _m("inference.ttft_ms", "Time to first token", "ms", LOWER, 1,
       "At the chosen load: a prompt's prefill and its wait for a replica", "time to first token",
       "longer", "shorter", kinds=SERVING_ONLY),
    _m("inference.tpot_ms", "Time per output token", "ms", LOWER, 2,
       "At the chosen load: the decode step plus the prefills interleaved with it", "time per output token",
       "longer", "shorter", kinds=SERVING_ONLY),
    _m("inference.tokens_per_s_per_mw", "Tokens per second per MW", "tokens/s/MW", HIGHER, 0,
       "Served output tokens per second of the design per MW of its facility power", "tokens per MW",
       "more", "fewer", kinds=SERVING_ONLY, report_label="Tokens/s per MW (facility)"),
    # Whole copies of the deployment on the design's (or the partition's) GPUs: per GPU and
    # design size together, so a bigger design that serves no more says so.
    _m("inference.design_output_tokens_per_s", "Output of the design", "tokens/s", HIGHER, 0,
       "Served output tokens per second of every copy of the deployment", "served output of the design",
       theme="served-output", kinds=SERVING_ONLY),
    _m("inference.usd_per_million_output_tokens", "Cost per million output tokens", "USD/Mtoken", LOWER, 3,
       "Every GPU of the design at the price per GPU-hour, over the output tokens it serves",
       "cost per output token", "higher", "lower", "serving-cost", kinds=SERVING_ONLY,
       panel_label="Per million output tokens"),
)
# ``inference.meets_slo`` (true/false) is not a metric here: a metric's values are numbers with a
# delta and a percentage, which a yes/no has not. The sweep results carry it as a column of its
# own (core/sweep/results.py).

# Figures the report and the panels show beside the headline metrics, defined here for their
# labels, digits and explanations, but neither compared nor swept: the parts of a headline
# figure (opex by part) or facts of the design no one trades against (the checkpoint's size).
DETAILS = (
    _m("power.typical_kw", "IT power, typical", "kW", NEITHER, 0,
       "IT power at the typical draw of each part while training (below the nameplate)",
       report_label="IT (typical in training)", panel_label="IT (typical in training)"),
    _m("power.network_share", "Network share of IT", "fraction", NEITHER, 1,
       "Switches, NICs and optics as a share of the IT power"),
    _m("power.gpu_hours", "GPU-hours", "h", NEITHER, 0, "GPU-hours of the training run", kinds=TRAINING_ONLY),
    _m("reliability.job_gpus", "Job GPUs", "GPUs", NEITHER, 0, "GPUs whose failure interrupts the job", **EXACT),
    _m("reliability.checkpoint_size_gb", "Checkpoint size", "GB", NEITHER, 0,
       "Model and optimizer states written at each checkpoint", kinds=TRAINING_ONLY),
    _m("reliability.checkpoint_blocking_s", "Checkpoint blocking", "s", NEITHER, 2,
       "Time the job stalls at each checkpoint", kinds=TRAINING_ONLY),
    _m("reliability.checkpoint_recoverable_after_s", "Checkpoint recoverable after", "s", NEITHER, 2,
       "Time until a copy of the checkpoint survives a failure; counted as rework in ETTR"),
    _m("reliability.spares_for_target", "Spare nodes for target", "count", NEITHER, 0,
       "Spare compute nodes that keep the job's GPUs available at the reliability target", **EXACT),
    _m("cost.capex_usd_per_gpu", "Capex per GPU", "USD", NEITHER, 0, "Capex over the design's GPUs",
       panel_label="Per GPU"),
    _m("cost.energy_usd_per_year", "Energy per year", "USD/year", NEITHER, 0,
       "Electricity of the facility power at the typical draw, a year", panel_label="Energy"),
    _m("cost.maintenance_usd_per_year", "Maintenance per year", "USD/year", NEITHER, 0,
       "Support contracts and repairs, a share of the hardware capex a year", panel_label="Maintenance"),
    _m("cost.colocation_usd_per_year", "Colocation per year", "USD/year", NEITHER, 0,
       "Rent of a colocated facility's power a year (0 when built)", panel_label="Colocation"),
)

METRICS: tuple[Metric, ...] = (*COUNTS, *BANDWIDTH, *LATENCY, *POWER, *RELIABILITY, *PERFORMANCE, *COST,
                               *INFERENCE_METRICS)
METRIC_PATHS: tuple[str, ...] = tuple(m.path for m in METRICS)  # compared, swept: the sweep's columns
BY_PATH: dict[str, Metric] = {m.path: m for m in (*METRICS, *DETAILS)}


def metric(path: str) -> Metric:
    """The metric at ``path`` ("bandwidth.bisection_tbit_s"); KeyError names it when unknown."""
    try:
        return BY_PATH[path]
    except KeyError:
        raise KeyError(f"no metric {path!r} in core/metrics.py") from None


def service_metrics(name: str) -> tuple[Metric, ...]:
    """The serving metrics of the inference service ``name`` of a design with several
    workloads: its evaluation's ``services[name].inference`` keys, section "services.<name>"."""
    return tuple(replace(m, section=f"services.{name}", service=name, noun=f"{m.noun} of {name}",
                         theme=f"services.{name}.{m.theme}")
                 for m in INFERENCE_METRICS)


def section_of(evaluation: dict, metric: Metric) -> Any:
    """The dict that holds the metric's key: the evaluation's section, or the ``inference``
    section of its service of that name (None when absent)."""
    if not metric.service:
        return evaluation.get(metric.section)
    services = evaluation.get("services")
    for service in services if isinstance(services, list) else ():
        if isinstance(service, dict) and service.get("name") == metric.service:
            return service.get("inference")
    return None


def metric_value(evaluation: dict, metric: Metric) -> float | None:
    """The metric's number in one evaluation: None when its section or key is absent, null,
    not a number (a bool is not a metric) or not finite."""
    section = section_of(evaluation, metric)
    value = section.get(metric.key) if isinstance(section, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value if math.isfinite(value) else None


def panel_paths(*paths: str, panel: str = "") -> dict[str, str]:
    """Row label -> metric path of the metrics a GUI panel shows (its baseline marks)."""
    return {metric(p).in_panel(panel): p for p in paths}


def value_text(m: Metric, value: float | None, missing: str = "n/a", unit: bool = True) -> str:
    """A value as the report shows it: the metric's digits and unit ("204.8 Tb/s", "35.2 %")."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return missing
    if m.unit == "fraction":
        return f"{value * 100:.{m.digits}f} %"
    if value == float("inf"):
        return "∞"
    text = f"{value:,.{m.digits}f}"
    return f"{text} {m.symbol}".strip() if unit else text
