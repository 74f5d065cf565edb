"""Report rows of served inference workloads: the main workload's serving figures, each
service of a design with several workloads, the partitions they run on, and what limits
serving."""

from __future__ import annotations

from core.analysis.inference import InferenceResult
from core.analysis.inference_bottleneck import InferenceBottleneck
from core.analysis.inference_search import DeploymentSearch
from core.analysis.serving import Disaggregation, KvPlacement, PoolFigures
from core.evaluate import Evaluation
from core.metrics import metric
from core.report.rows import Row, num, pct
from core.report.run_rows import does_not_fit_text
from core.service_results import ServiceResult


def label(key: str) -> str:
    """The report label of serving metric ``inference.<key>`` (core/metrics.py)."""
    return metric(f"inference.{key}").in_report


def inference_rows(ev: Evaluation) -> list[Row]:
    """The serving figures of the main workload when it is an inference service, with its
    partition when the design carries several workloads."""
    main = ev.partitions.main if ev.partitions is not None else None
    rows = serving_rows(ev.inference, "inference", ev.cannot_run, main.gpus if main is not None else ev.counts.gpus,
                        ev.inference_search)
    if main is not None:
        rows.insert(1, Row("Partition", f"{main.name}: {main.describe()}", "inference.partition"))
    return rows


def service_rows(service: ServiceResult) -> list[Row]:
    """One service of a design with several workloads: its partition (GPUs, accelerator, power
    and $/GPU-hour share) and its serving figures, keyed ``services.<name>.<key>``."""
    key = f"services.{service.name}"
    view = service.partition
    rows = [Row("Partition", f"{view.name}: {view.describe()}", f"{key}.partition"),
            *serving_rows(service.inference, key, service.inference.cannot_run, view.gpus, service.search)]
    if service.bottleneck is not None:
        rows += inference_bottleneck_rows(service.bottleneck, f"{key}.bottleneck")
    return rows


def serving_rows(inf: InferenceResult, key: str, cannot_run: tuple, gpus: int,
                 search: DeploymentSearch | None = None) -> list[Row]:
    """The rows of one served inference workload, keyed ``<key>.<field>``: what it serves and
    how (``search``: the deployment search that chose it, for "auto"), "does not fit" and why
    when it cannot run, else TTFT / TPOT at the chosen load against
    the SLOs (per class of a request mix), tokens per GPU and per MW (``gpus``: those of the
    design or partition it serves on), where the KV cache lives, the two pools of a
    disaggregated deployment, and the bound of each phase."""
    w = inf.workload
    rows = [
        Row("Workload", w.name, f"{key}.workload"),
        Row("Deployment", _deployment_text(inf, search), f"{key}.deployment"),
        Row("Precision", f"{w.precision} weights, {w.kv_cache_precision} KV cache", f"{key}.precision"),
        Row("Requests", w.requests.describe(), f"{key}.requests"),
        Row("Weights per GPU", num(inf.weights_gb_per_gpu, 1, "GB"), f"{key}.weights_gb_per_gpu"),
        Row("KV cache per token", num(inf.kv_bytes_per_token / 1024, 1, "KiB"), f"{key}.kv_bytes_per_token"),
    ]
    if inf.cannot_run:
        return rows + [Row("Result", does_not_fit_text(cannot_run), f"{key}.cannot_run")]
    mixed = len(inf.classes) > 1
    rows += [
        Row("KV cache per GPU", f"{num(inf.kv_cache_gb_per_gpu, 1, 'GB')} of HBM: up to "
            f"{inf.max_concurrency_per_replica:,} requests per replica (batch {inf.batch:,})",
            f"{key}.kv_cache_gb_per_gpu"),
        Row("KV cache placement", _kv_placement_text(inf.kv_placement), f"{key}.kv_placement"),
        Row(label("ttft_ms"), f"{num(inf.ttft_ms, 1, 'ms')} at load"
            f"{', mean over the classes' if mixed else ''}; {num(inf.ttft_unloaded_ms, 1, 'ms')} "
            f"alone (SLO {w.slo.ttft_ms:,.0f} ms)", f"{key}.ttft_ms"),
        *[Row(f"  {c.input_tokens:,} in, {c.output_tokens:,} out ({c.share:.0%})",
              f"TTFT {num(c.ttft_ms, 1, 'ms')} at load, {num(c.ttft_unloaded_ms, 1, 'ms')} alone"
              f"{'' if c.meets_ttft_slo else ' (misses the SLO)'}; KV cache "
              f"{num(c.kv_gb_per_request, 2, 'GB')} per request", f"{key}.classes.{i}")
          for i, c in enumerate(inf.classes) if mixed],
        Row(label("tpot_ms"), f"{num(inf.tpot_ms, 2, 'ms')} at load; decode step "
            f"{num(inf.decode_step_ms, 2, 'ms')} (SLO {w.slo.tpot_ms:,.1f} ms)", f"{key}.tpot_ms"),
        Row("SLO", "meets" if inf.meets_slo else "misses", f"{key}.meets_slo"),
        Row(label("prefill_tokens_per_s_per_gpu"), num(inf.prefill_tokens_per_s_per_gpu, 0),
            f"{key}.prefill_tokens_per_s_per_gpu"),
        Row(label("decode_tokens_per_s_per_gpu"), f"{num(inf.decode_tokens_per_s_per_gpu, 0)} (decode steps only)",
            f"{key}.decode_tokens_per_s_per_gpu"),
        Row(label("output_tokens_per_s_per_gpu"), f"{num(inf.output_tokens_per_s_per_gpu, 0)} served "
            "(prefill counted)", f"{key}.output_tokens_per_s_per_gpu"),
    ]
    if inf.prefill_time_fraction is not None:
        rows.append(Row("Prefill share of replica time", pct(inf.prefill_time_fraction),
                        f"{key}.prefill_time_fraction"))
    if inf.disaggregated is not None:
        rows += _disaggregated_rows(inf.disaggregated, key)
    return rows + [
        Row(label("tokens_per_s_per_mw"), f"{num(inf.tokens_per_s_per_mw, 0)} ("
            f"{inf.serving_gpus_in_design:,} of {gpus:,} GPUs serving copies of the layout)",
            f"{key}.tokens_per_s_per_mw"),
        Row(label("usd_per_million_output_tokens"), num(inf.usd_per_million_output_tokens, 3, "USD"),
            f"{key}.usd_per_million_output_tokens"),
        *[Row(f"{title} step", f"{phase.bound.replace('_', ' ')}-bound: compute "
              f"{phase.compute_s * 1e3:.3g} ms, HBM {phase.memory_s * 1e3:.3g} ms, "
              + (f"KV fetch {phase.kv_fetch_s * 1e3:.3g} ms, " if phase.kv_fetch_s else "")
              + f"communication {phase.communication_s * 1e3:.3g} ms, fixed "
              f"{phase.fixed_s * 1e3:.3g} ms per stage", f"{key}.{part}")
          for title, part, phase in (("Prefill", "prefill", inf.prefill), ("Decode", "decode", inf.decode))],
    ]


def partition_rows(ev: Evaluation) -> list[Row]:
    """Every partition of a design with several workloads: its workload, GPUs and accelerator,
    and its share of the power and cost (own compute, a GPU share of what they share); why it
    has no GPUs when it cannot be resolved."""
    rows = []
    for view in ev.partitions.all:
        workload = f"{view.kind} {view.workload_name}" if view.workload_name else "no workload"
        if view.fabric is None:
            text = "; ".join(d.message for d in view.problems)
        else:
            text = (f"{view.describe()} ({view.fabric.accelerator.id}, scale-up domain "
                    f"{view.fabric.scale_up_domain_gpus:,} GPUs); IT {num(view.it_kw, 0, 'kW')}, "
                    f"facility {num(view.facility_kw, 0, 'kW')}, "
                    f"{num(view.usd_per_gpu_hour, 2, 'USD')} per GPU-hour")
        rows.append(Row(f"{view.name} ({workload})", text, f"partitions.{view.name}"))
    return rows


def _kv_placement_text(kv: KvPlacement) -> str:
    if kv.placement == "host":
        return (f"HBM and host memory: {kv.host_gb_per_gpu:,.0f} GB per GPU over "
                f"{kv.host_link_gbyte_s:,.0f} GB/s per direction; {kv.host_kv_gb_per_gpu:,.1f} GB "
                "of the batch's KV cache read from it every decode step")
    if kv.placement == "remote":
        return (f"HBM, with a remote prefix cache serving {kv.prefix_hit_rate:.0%} of prompt tokens "
                f"over the storage path at {kv.storage_read_gbyte_s_per_gpu:,.2f} GB/s per GPU")
    return "HBM only"


def _disaggregated_rows(dis: Disaggregation, key: str) -> list[Row]:
    def pool(name: str, p: PoolFigures, unit: str) -> Row:
        return Row(f"{name.title()} pool", f"{p.gpus:,} GPUs, {p.batch:,} {unit} a step of "
                   f"{p.step_ms:,.1f} ms: {p.requests_per_s:,.1f} requests/s, {pct(p.utilisation)} busy",
                   f"{key}.disaggregated.{name}")
    prefill, decode = dis.prefill, dis.decode
    return [
        pool("prefill", prefill, "prompts"),
        pool("decode", decode, "sequences per replica"),
        Row("Limited by", f"the {dis.limited_by} pool; {dis.balanced_prefill_per_decode_gpu:.2f} prefill "
            f"GPUs per decode GPU would balance the pools (this deployment: "
            f"{prefill.gpus / decode.gpus:.2f})", f"{key}.disaggregated.limited_by"),
        Row("KV cache hand-over", f"{dis.kv_transfer_ms:,.2f} ms per prefill step over the "
            f"{dis.kv_transfer_level} level", f"{key}.disaggregated.kv_transfer_ms"),
    ]


def _deployment_text(inf: InferenceResult, search: DeploymentSearch | None) -> str:
    """The deployment served: as written, or the search's choice for "auto"."""
    dep = inf.workload.deployment
    if search is None:
        return "auto (layout search)" if inf.workload.auto else dep.describe()
    if search.deployment is None:
        return f"auto: no deployment runs ({search.considered:,} tried)"
    return (f"auto: {dep.describe()} (chosen of {search.considered:,} deployments, "
            f"{search.evaluated:,} serving evaluations{'' if search.meets_slo else '; none meets both SLOs'})")


def inference_bottleneck_rows(bn: InferenceBottleneck, key: str = "bottleneck") -> list[Row]:
    """What binds each serving phase, the what-ifs served again, and ("auto") why the other
    deployments lose."""
    rows = [
        Row("Limited by", bn.primary, f"{key}.primary"),
        Row("Summary", bn.summary, f"{key}.summary"),
    ]
    for lim in bn.limiters:
        rows.append(Row(f"  {lim.name}", f"{lim.share * 100:.1f} % of the step, {lim.text}",
                        f"{key}.limiters.{lim.key}"))
    rows.append(Row("Most help", bn.best.text if bn.best is not None else
                    "no single change tried raises output tokens/s by 1 % within the SLOs", f"{key}.best"))
    for w in bn.what_ifs:
        if w is not bn.best:
            rows.append(Row("  what-if", w.text, f"{key}.what_ifs.{w.key}"))
    for i, cand in enumerate(bn.layout_search):
        label = "Auto deployment (chosen)" if i == 0 else "  runner-up"
        text = cand.deployment.describe() if i == 0 else f"{cand.deployment.describe()}: {cand.reason}"
        rows.append(Row(label, text, f"{key}.layout_search.{i}"))
    return rows
