"""The words and rows of the Performance panel for an inference workload (core.analysis.serving.
InferenceResult): TTFT and TPOT against the SLOs, tokens per second per GPU and per MW, cost
per million output tokens, the bound of each phase, the KV cache and the concurrency it allows,
the deployment. A workload that cannot run has no such figures: its rows say why instead.
"""

from __future__ import annotations

import html
from typing import Any

from core.inference_workload import Deployment
from designer.format import money, num

DOES_NOT_FIT = "does not fit"
NOT_MODELLED = "not modelled yet"
NOT_MODELLED_CODE = "INFERENCE_NOT_MODELLED"
# non-breaking hyphens: in a narrow dock the value wraps at " · ", not inside "compute-bound"
BOUND_TEXT = {"compute": "compute\u2011bound", "memory": "HBM\u2011bound", "communication": "communication\u2011bound"}
MEETS, MISSES = "✓", "✗"


def missing_word(inference: Any) -> str:
    """What a figure that could not be computed says: "not modelled yet" when the serving model
    does not cover the workload, else "does not fit"."""
    codes = {d.code for d in inference.cannot_run}
    return NOT_MODELLED if codes == {NOT_MODELLED_CODE} else DOES_NOT_FIT


def _layout(deployment: Deployment, phase: str) -> str:
    p = getattr(deployment, phase)
    return f"TP {p.tp} · PP {p.pp} · EP {p.ep} · DP {p.dp} · {p.gpus:,} GPUs"


def deployment_rows(deployment: Deployment | str) -> list[tuple[str, str]]:
    if not isinstance(deployment, Deployment):
        return [("Deployment", "searched (auto)")]
    if deployment.disaggregated:
        return [("Prefill layout", f"{_layout(deployment, 'prefill')}, batch {deployment.prefill.batch:,}"),
                ("Decode layout", f"{_layout(deployment, 'decode')}, batch {deployment.decode.batch:,}")]
    return [("Deployment", f"aggregated, {_layout(deployment, 'decode')}")]


def _against(value_ms: float, slo_ms: float, digits: int) -> str:
    mark = MEETS if value_ms <= slo_ms else MISSES
    return f"{num(value_ms, digits, 'ms')}  {mark} SLO {num(slo_ms, digits, 'ms')}"


def _phase_tip(name: str, phase: Any) -> str:
    return (f"{name} step per pipeline stage: compute {phase.compute_s * 1e3:,.2f} ms, memory "
            f"{phase.memory_s * 1e3:,.2f} ms, communication {phase.communication_s * 1e3:,.2f} ms, "
            f"fixed {phase.fixed_s * 1e3:,.2f} ms (the larger of compute and memory, plus "
            "communication and the layers' fixed cost)")


def serving_rows(inference: Any) -> list[tuple]:
    """(label, value[, tooltip]) rows of the panel; a value None is a section title."""
    workload = inference.workload
    rows: list[tuple] = [("Workload", workload.name), *deployment_rows(workload.deployment),
                         ("Requests", workload.requests.describe())]
    slo = workload.slo
    if inference.runs:
        rows += [
            (f"Serving at batch {inference.batch:,}", None),
            ("Time to first token", _against(inference.ttft_ms, slo.ttft_ms, 0),
             "One request's prefill alone on its replica (queueing is not modelled)"),
            ("Time per output token", _against(inference.tpot_ms, slo.tpot_ms, 1)),
            ("Prefill per GPU", f"{num(inference.prefill_tokens_per_s_per_gpu, 0, 'tokens/s')} · "
                                f"{BOUND_TEXT[inference.prefill.bound]}", _phase_tip("Prefill", inference.prefill)),
            ("Decode per GPU", f"{num(inference.decode_tokens_per_s_per_gpu, 0, 'tokens/s')} · "
                               f"{BOUND_TEXT[inference.decode.bound]}", _phase_tip("Decode", inference.decode)),
            ("Tokens per second per MW", num(inference.tokens_per_s_per_mw, 0),
             "Decode tokens per second of every GPU of the design per MW of facility power"),
            ("Per million output tokens", money(inference.usd_per_million_output_tokens)
             if inference.usd_per_million_output_tokens is not None else "— (no price)",
             "GPU time of a request (its prefill, then its share of the decode steps) at the cost "
             "panel's price per GPU-hour"),
        ]
    else:
        word = missing_word(inference)
        why = "\n".join(d.message for d in inference.cannot_run)
        rows += [("Serving", None)] + [(label, word, why) for label in (
            "Time to first token", "Time per output token", "Prefill per GPU", "Decode per GPU",
            "Tokens per second per MW", "Per million output tokens")]
    rows += [("Memory per GPU", None)]
    if inference.weights_gb_per_gpu is not None:
        rows.append(("Weights", num(inference.weights_gb_per_gpu, 1, "GB"),
                     f"{workload.precision} weights this GPU holds"))
    if inference.kv_cache_gb_per_gpu is not None:
        rows.append(("KV cache", num(inference.kv_cache_gb_per_gpu, 1, "GB"),
                     f"HBM left for the {workload.kv_cache_precision} KV cache after the weights and "
                     f"the activation reserve ({num(inference.kv_bytes_per_token / 1e3, 1, 'kB')} per "
                     "token of context)"))
    if inference.runs:
        rows.append(("Concurrency per replica", f"{inference.batch:,} of {inference.max_concurrency_per_replica:,}",
                     f"Requests decoded together, of the {inference.max_concurrency_per_replica:,} the KV "
                     "cache holds at the mean context"))
    return rows


def slo_html(inference: Any) -> tuple[str, bool]:
    """(the line above the rows, whether the SLOs are met) for a workload that runs."""
    slo, batch = inference.workload.slo, inference.batch
    parts = [f"TTFT {num(inference.ttft_ms, 0, 'ms')} {'≤' if inference.ttft_ms <= slo.ttft_ms else '>'} "
             f"{num(slo.ttft_ms, 0, 'ms')}",
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
    if missing_word(inference) == NOT_MODELLED:
        return (f"<b>Not modelled yet</b>: the serving model cannot evaluate {name} as written, so it "
                f"has no TTFT, TPOT or tokens per second:{lines}")
    return (f"<b>{DOES_NOT_FIT.capitalize()}</b>: {name} cannot run on this design, so it has no TTFT, "
            f"TPOT or tokens per second:{lines}")


def serving_status(inference: Any) -> tuple[str, str]:
    """(text, tooltip) for the status bar."""
    name = inference.workload.name
    if not inference.runs:
        return (f"{name}: {missing_word(inference)}",
                "\n".join(f"{d.code}: {d.message}" for d in inference.cannot_run))
    mark = MEETS if inference.meets_slo else MISSES
    return (f"TPOT {num(inference.tpot_ms, 1, 'ms')} {mark} · "
            f"{num(inference.decode_tokens_per_s_per_gpu, 0, 'tokens/s per GPU')}",
            f"{name}: TTFT {num(inference.ttft_ms, 0, 'ms')}, TPOT {num(inference.tpot_ms, 1, 'ms')} at "
            f"batch {inference.batch:,} ({'meets' if inference.meets_slo else 'misses'} the SLOs)")
