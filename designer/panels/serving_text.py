"""The words and rows of the Performance panel for an inference workload (core.analysis.serving.
InferenceResult), in groups a ~400 px dock reads top to bottom: latency at the chosen load (TTFT
and TPOT against the SLOs, beside a prompt alone and the bare decode step), throughput per GPU
(served output tokens with prefill counted, decode and prefill tokens), the design (the GPUs
serving copies of the layout, tokens/s per MW, $ per million output tokens), each class of a
request mix (its TTFT and whether it meets the target), the two pools of a disaggregated
deployment, and the memory per GPU (weights, the KV cache and where it lives, the concurrency
it allows). A workload that cannot run has no such figures: its rows say why instead.
"""

from __future__ import annotations

import html
from typing import Any

from core.analysis.serving_explanation import BOUND_TEXT
from core.analysis.serving_phase import unit_gpus
from core.inference_workload import Deployment, PhaseLayout
from core.metrics import metric
from designer.common.format import money, num

DOES_NOT_FIT = "does not fit"
MEETS, MISSES = "✓", "✗"
# The serving metrics the panel shows (core/metrics.py); a workload that cannot run still lists
# their rows, each saying why it has no value.
SERVING_PATHS = ("inference.ttft_ms", "inference.tpot_ms", "inference.output_tokens_per_s_per_gpu",
                 "inference.decode_tokens_per_s_per_gpu", "inference.prefill_tokens_per_s_per_gpu",
                 "inference.tokens_per_s_per_mw", "inference.usd_per_million_output_tokens",
                 "inference.design_output_tokens_per_s")
SERVING_LABELS = tuple(metric(p).in_panel() for p in SERVING_PATHS if p != "inference.design_output_tokens_per_s")


def _label(key: str) -> str:
    return metric(f"inference.{key}").in_panel()


def _layout(deployment: Deployment, phase: str) -> str:
    p = getattr(deployment, phase)
    return f"TP {p.tp} · PP {p.pp} · EP {p.ep} · DP {p.dp} · {p.gpus:,} GPUs"


def short_layout(layout: PhaseLayout) -> str:
    """"TP 8 ×2", "TP 1 EP 8 ×8": a replica's TP (PP and EP when not 1) times the replicas."""
    parts = [f"TP {layout.tp}"] + [f"{name} {value}" for name, value in (("PP", layout.pp), ("EP", layout.ep))
                                   if value > 1]
    return f"{' '.join(parts)} ×{layout.dp:,}"


def deployment_rows(deployment: Deployment | str) -> list[tuple[str, str]]:
    if not isinstance(deployment, Deployment):
        return [("Deployment", "searched (auto)")]
    if deployment.disaggregated:
        return [("Prefill layout", f"{_layout(deployment, 'prefill')}, batch {deployment.prefill.batch:,}"),
                ("Decode layout", f"{_layout(deployment, 'decode')}, batch {deployment.decode.batch:,}")]
    return [("Deployment", f"aggregated, {_layout(deployment, 'decode')}")]


def _nb(text: str) -> str:
    """``text`` kept on one line: a narrow dock wraps a value between its parts, never inside
    "2,000 ms"."""
    return text.replace(" ", "\u00a0")


def _mark(meets: bool, slo_ms: float, digits: int) -> str:
    """"✓ SLO 2,000 ms" or "✗ SLO 2,000 ms", on one line."""
    return _nb(f"{MEETS if meets else MISSES} SLO {num(slo_ms, digits, 'ms')}")


def _against(value_ms: float, slo_ms: float, digits: int) -> str:
    return f"{_nb(num(value_ms, digits, 'ms'))}  {_mark(value_ms <= slo_ms, slo_ms, digits)}"


def _phase_tip(name: str, phase: Any) -> str:
    return (f"{name} step per pipeline stage: compute {phase.compute_s * 1e3:,.2f} ms, memory "
            f"{phase.memory_s * 1e3:,.2f} ms, KV fetch {phase.kv_fetch_s * 1e3:,.2f} ms, communication "
            f"{phase.communication_s * 1e3:,.2f} ms, fixed {phase.fixed_s * 1e3:,.2f} ms (the largest of "
            "the first three, plus communication and the layers' fixed cost)")


def _bound(phase: Any) -> str:
    return BOUND_TEXT.get(phase.bound, phase.bound)


def _class_label(c: Any) -> str:
    return f"{c.input_tokens:,} in · {c.output_tokens:,} out · {c.share:.0%}"


def _slowest_class(inference: Any) -> Any | None:
    """The request class with the longest TTFT at load (None: one request shape)."""
    if len(inference.classes) < 2:
        return None
    return max(inference.classes, key=lambda c: c.ttft_ms)


def _latency_rows(inference: Any) -> list[tuple]:
    slo, dis = inference.workload.slo, inference.disaggregated
    slowest = _slowest_class(inference)
    ttft_tip = ("At load: the prompt's prefill" + (" step, the wait for the step in progress and the KV "
                                                   "hand-over to the decode pool" if dis is not None else
                                                   " and its wait in the replica's prefill queue (Poisson "
                                                   "arrivals)"))
    if slowest is not None:
        ttft_tip += (f". The mean over the request classes; the SLO holds only if every class meets it "
                     f"(the slowest: {slowest.ttft_ms:,.0f} ms, see Request classes)")
        ttft = f"{_nb(num(inference.ttft_ms, 0, 'ms') + ' mean')}  {_mark(slowest.meets_ttft_slo, slo.ttft_ms, 0)}"
    else:
        ttft = _against(inference.ttft_ms, slo.ttft_ms, 0)
    rows: list[tuple] = [
        (f"Latency at batch {inference.batch:,}", None),
        (_label("ttft_ms"), ttft, ttft_tip),
        ("TTFT alone", num(inference.ttft_unloaded_ms, 0, "ms"),
         "A prompt alone on an idle " + ("prefill replica, with its KV hand-over" if dis is not None else
                                         "replica") + " (mean over the request classes)"),
        (_label("tpot_ms"), _against(inference.tpot_ms, slo.tpot_ms, 1),
         "The decode step: the decode pool does nothing else" if dis is not None else
         "At load: the decode step plus the prefills each replica interleaves with its decode steps"),
    ]
    if dis is None:  # a decode pool's TPOT is its decode step
        rows.append(("Decode step", num(inference.decode_step_ms, 1, "ms"),
                     f"One decode step of the {inference.batch:,} sequences a replica holds, no prefill "
                     "interleaved"))
    if inference.prefill_time_fraction is not None:
        rows.append(("Time in prefill", f"{inference.prefill_time_fraction:.0%} of each replica's time",
                     "Share of an aggregated replica's time spent prefilling prompts between decode steps"))
    return rows


def _throughput_rows(inference: Any) -> list[tuple]:
    dis = inference.disaggregated is not None
    return [
        ("Throughput per GPU", None),
        (_label("output_tokens_per_s_per_gpu"), num(inference.output_tokens_per_s_per_gpu, 0, "tokens/s"),
         "Output tokens the deployment serves per second per GPU, each request's prefill counted, over "
         + ("both pools' GPUs" if dis else "every GPU of the deployment")),
        (_label("decode_tokens_per_s_per_gpu"),
         _parts(num(inference.decode_tokens_per_s_per_gpu, 0, "tokens/s"), _bound(inference.decode)),
         f"Decode steps only (no prefill counted), per GPU of a {'decode-pool ' if dis else ''}replica. "
         + _phase_tip("Decode", inference.decode)),
        (_label("prefill_tokens_per_s_per_gpu"),
         _parts(num(inference.prefill_tokens_per_s_per_gpu, 0, "tokens/s"), _bound(inference.prefill)),
         f"Prompt tokens per second of prefill, per GPU of a {'prefill-pool ' if dis else ''}replica. "
         + _phase_tip("Prefill", inference.prefill)),
    ]


def _design_rows(inference: Any, gpus: int | None) -> list[tuple]:
    serving, dep = inference.serving_gpus_in_design, inference.workload.deployment
    unit = dep.gpus if dep.disaggregated else unit_gpus(dep.decode)
    copies = serving // unit
    of = f" of {gpus:,}" if gpus is not None else ""
    what = "both pools" if dep.disaggregated else "the layout"
    return [
        ("The design", None),
        ("Serving GPUs", f"{serving:,}{of} · {copies:,} {'copy' if copies == 1 else 'copies'}",
         f"{serving:,}{of} GPUs serve copies of {what} ({copies:,} of {unit:,} GPUs each, every one serving "
         "as this deployment does); the GPUs left over serve nothing but draw power and cost money (they "
         "count in tokens/s per MW and $ per million tokens)"),
        (_label("design_output_tokens_per_s"), num(inference.design_output_tokens_per_s, 0, "tokens/s"),
         "Served output tokens per second of every copy of the deployment"),
        (_label("tokens_per_s_per_mw"), num(inference.tokens_per_s_per_mw, 0),
         "Served output tokens per second of the design per MW of its facility power"),
        (_label("usd_per_million_output_tokens"), money(inference.usd_per_million_output_tokens)
         if inference.usd_per_million_output_tokens is not None else "— (no price)",
         "Every GPU of the design at the cost panel's price per GPU-hour, over the output tokens it serves"),
    ]


def _class_rows(inference: Any) -> list[tuple]:
    if len(inference.classes) < 2:
        return []
    slo = inference.workload.slo.ttft_ms
    rows: list[tuple] = [("Request classes (TTFT at load)", None)]
    for c in inference.classes:
        value = _nb(num(c.ttft_ms, 0, 'ms')) + "  " + (MEETS if c.meets_ttft_slo else _mark(False, slo, 0))
        rows.append((_class_label(c), value,
                     f"{c.share:.0%} of the requests: {c.input_tokens:,} prompt tokens, {c.output_tokens:,} "
                     f"output tokens; alone on an idle replica {c.ttft_unloaded_ms:,.0f} ms; its KV cache "
                     f"{c.kv_gb_per_request:,.2f} GB at full context"))
    return rows


def _parts(*parts: str) -> str:
    """Parts joined by " · ", each kept on one line."""
    return " · ".join(_nb(part) for part in parts)


def _pool_value(pool: Any, limits: bool) -> str:
    return _parts(f"{pool.gpus:,} GPUs", num(pool.requests_per_s, 1, "req/s"), f"{pool.utilisation:.0%} busy",
                  *(["limits"] if limits else []))


def _pool_tip(name: str, pool: Any, unit: str) -> str:
    return (f"The {name} pool: batch {pool.batch:,} {unit} (its KV cache holds {pool.max_batch:,}), a step "
            f"{pool.step_ms:,.1f} ms, {pool.requests_per_s:,.1f} requests/s alone; {pool.weights_gb_per_gpu:,.1f} GB "
            f"of weights and {pool.kv_cache_gb_per_gpu:,.1f} GB for the KV cache per GPU")


def _pool_rows(inference: Any) -> list[tuple]:
    dis = inference.disaggregated
    if dis is None:
        return []
    dep = inference.workload.deployment
    ratio = dep.prefill.gpus / dep.decode.gpus
    return [
        ("Prefill and decode pools", None),
        ("Prefill pool", _pool_value(dis.prefill, dis.limited_by == "prefill"),
         _pool_tip("prefill", dis.prefill, "prompts per step")),
        ("Decode pool", _pool_value(dis.decode, dis.limited_by == "decode"),
         _pool_tip("decode", dis.decode, "sequences per replica")),
        ("Balancing ratio", f"{dis.balanced_prefill_per_decode_gpu:,.2f} prefill per decode GPU "
                            f"{_nb(f'(now {ratio:,.2f})')}",
         "Prefill GPUs per decode GPU at which both pools serve the same requests per second with these "
         "layouts: the pool that limits would then keep the other busy"),
        ("KV hand-over", _parts(num(dis.kv_transfer_ms, 2, "ms"), f"{dis.kv_transfer_level} level"),
         "A prefill step's KV cache sent to the decode pool, over the innermost fabric level that holds both "
         "pools (placed one after the other); part of TTFT"),
    ]


def _placement_rows(inference: Any) -> list[tuple]:
    """Where the KV cache lives beyond HBM: host memory over its link, or a remote prefix cache
    on the storage tier."""
    kv = inference.kv_placement
    if kv is None or kv.placement == "hbm":
        return []
    if kv.placement == "host":
        link = num(kv.host_link_gbyte_s, 0, "GB/s") if kv.host_link_gbyte_s is not None else "unknown"
        return [("Host memory", _parts(f"{num(kv.host_gb_per_gpu, 0, 'GB')} per GPU", f"link {link}"),
                 "Host memory the KV cache may take per GPU, and the host link it is read back over (per "
                 "direction, before its efficiency)"),
                ("KV in host memory", f"{num(kv.host_kv_gb_per_gpu, 1, 'GB')} per GPU",
                 "The decode batch's KV cache beyond the free HBM: read over the host link every decode step "
                 "(overlapped with the HBM reads)")]
    read = (num(kv.storage_read_gbyte_s_per_gpu, 1, "GB/s per GPU")
            if kv.storage_read_gbyte_s_per_gpu is not None else "no storage read")
    return [("Prefix cache", _parts(f"{kv.prefix_hit_rate:.0%} of prompt tokens", read),
             "A remote prefix cache serves this share of each prompt's KV cache over the storage path "
             "(the storage analysis's bulk read per GPU, every GPU reading); prefill computes the rest")]


def _memory_rows(inference: Any) -> list[tuple]:
    workload, dis = inference.workload, inference.disaggregated
    rows: list[tuple] = [("Memory per GPU", None)]
    if dis is not None:
        rows.append(("Weights", _parts(f"{num(dis.prefill.weights_gb_per_gpu, 1, 'GB')} prefill",
                                       f"{num(dis.decode.weights_gb_per_gpu, 1, 'GB')} decode"),
                     f"{workload.precision} weights a GPU of each pool holds"))
        rows.append(("KV cache", _parts(f"{num(dis.prefill.kv_cache_gb_per_gpu, 1, 'GB')} prefill",
                                        f"{num(dis.decode.kv_cache_gb_per_gpu, 1, 'GB')} decode"),
                     f"HBM left for the {workload.kv_cache_precision} KV cache after the weights and the "
                     f"activation reserve ({num(inference.kv_bytes_per_token / 1e3, 1, 'kB')} per token)"))
    else:
        if inference.weights_gb_per_gpu is not None:
            rows.append(("Weights", num(inference.weights_gb_per_gpu, 1, "GB"),
                         f"{workload.precision} weights this GPU holds"))
        if inference.kv_cache_gb_per_gpu is not None:
            rows.append(("KV cache", num(inference.kv_cache_gb_per_gpu, 1, "GB"),
                         f"HBM left for the {workload.kv_cache_precision} KV cache after the weights and "
                         f"the activation reserve ({num(inference.kv_bytes_per_token / 1e3, 1, 'kB')} per "
                         "token of context)"))
    rows += _placement_rows(inference)
    if inference.runs:
        rows.append(("Concurrency per replica", f"{inference.batch:,} of {inference.max_concurrency_per_replica:,}",
                     f"Requests decoded together, of the {inference.max_concurrency_per_replica:,} the KV "
                     "cache holds at the mean context"))
    return rows


def serving_rows(inference: Any, gpus: int | None = None) -> list[tuple]:
    """(label, value[, tooltip]) rows of the panel; a value None is a section title. ``gpus``:
    the GPUs the workload is served on (the design's, or its partition's; None: not known),
    which "Serving GPUs" counts the copies of the layout against."""
    workload = inference.workload
    rows: list[tuple] = [("Workload", workload.name), *deployment_rows(workload.deployment),
                         ("Requests", workload.requests.describe())]
    if inference.runs:
        rows += (_latency_rows(inference) + _throughput_rows(inference) + _design_rows(inference, gpus)
                 + _class_rows(inference) + _pool_rows(inference))
    else:
        why = "\n".join(d.message for d in inference.cannot_run)
        rows += [("Serving", None)] + [(label, DOES_NOT_FIT, why) for label in SERVING_LABELS]
    return rows + _memory_rows(inference)


def _ttft_part(inference: Any) -> str:
    slo = inference.workload.slo.ttft_ms
    slowest = _slowest_class(inference)
    if slowest is None:
        return f"TTFT {num(inference.ttft_ms, 0, 'ms')} {'≤' if inference.ttft_ms <= slo else '>'} {num(slo, 0, 'ms')}"
    # the SLO is every class's: the slowest one decides
    return (f"TTFT of the slowest class ({slowest.input_tokens:,} in) {num(slowest.ttft_ms, 0, 'ms')} "
            f"{'≤' if slowest.meets_ttft_slo else '>'} {num(slo, 0, 'ms')}")


def slo_html(inference: Any) -> tuple[str, bool]:
    """(the line above the rows, whether the SLOs are met) for a workload that runs."""
    slo, batch = inference.workload.slo, inference.batch
    parts = [_ttft_part(inference),
             f"TPOT {num(inference.tpot_ms, 1, 'ms')} {'≤' if inference.tpot_ms <= slo.tpot_ms else '>'} "
             f"{num(slo.tpot_ms, 1, 'ms')}"]
    if inference.meets_slo:
        return f"<b>{MEETS} Meets the SLOs</b> at batch {batch:,}: {', '.join(parts)}", True
    return f"<b>{MISSES} Misses the SLOs</b> at batch {batch:,}: {', '.join(parts)}", False


def cannot_serve_html(inference: Any) -> str:
    """The red paragraph of a workload that cannot run: which, and core's reasons."""
    lines = "".join(f"<br>• {html.escape(d.message)} <span style='color:#8d6e63'>({d.code})</span>"
                    for d in inference.cannot_run)
    name = html.escape(inference.workload.name)
    return (f"<b>{DOES_NOT_FIT.capitalize()}</b>: {name} cannot run on this design, so it has no TTFT, "
            f"TPOT or tokens per second:{lines}")


def serving_status(inference: Any) -> tuple[str, str]:
    """(text, tooltip) for the status bar."""
    name = inference.workload.name
    if not inference.runs:
        return (f"{name}: {DOES_NOT_FIT}",
                "\n".join(f"{d.code}: {d.message}" for d in inference.cannot_run))
    mark = MEETS if inference.meets_slo else MISSES
    return (f"TPOT {num(inference.tpot_ms, 1, 'ms')} {mark} · "
            f"{num(inference.output_tokens_per_s_per_gpu, 0, 'output tokens/s per GPU')}",
            f"{name}: TTFT {num(inference.ttft_ms, 0, 'ms')}, TPOT {num(inference.tpot_ms, 1, 'ms')} at "
            f"batch {inference.batch:,} ({'meets' if inference.meets_slo else 'misses'} the SLOs); "
            f"{num(inference.decode_tokens_per_s_per_gpu, 0, 'decode tokens/s per GPU')}")


def serving_gpus(ev: Any) -> int | None:
    """The GPUs an evaluation's main workload is served on: its partition's, else the design's
    network's (None: no GPUs)."""
    parts = getattr(ev, "partitions", None)
    main = parts.main if parts is not None else None
    fabric = main.fabric if main is not None else ev.topology.fabric
    return fabric.gpus if fabric is not None else None
