"""A stand-in for the serving roofline (core/analysis/serving.py) that the deployment-search
tests patch in where they test what the search does with an answer rather than the roofline's
answer itself: it serves a disaggregated deployment as its two pools would be with no hand-over
cost, and calls the real serve_deployment for everything else."""

from dataclasses import replace

from core.analysis.serving import serve_deployment
from core.inference_workload import Deployment


def pooled_serve(fabric, workload, facility_kw, assumptions=None, usd_per_gpu_hour=None, **options):
    """serve_deployment for aggregated deployments; a disaggregated one served as its two pools
    would be with no hand-over cost: the request rate is the slower pool's (prefill: one prompt
    per step per replica, the step of a prompt alone; decode: batch per replica per decode step
    x output tokens), TTFT the prompt alone, TPOT the decode step."""
    dep = workload.deployment
    if not dep.disaggregated:
        return serve_deployment(fabric, workload, facility_kw, assumptions, usd_per_gpu_hour, **options)
    curve = options.pop("curve", True)  # the pools' own curves are read below

    def alone(layout):
        return serve_deployment(fabric, replace(workload, deployment=Deployment("aggregated", layout, layout)),
                                facility_kw, assumptions, usd_per_gpu_hour, **options)

    prefill, decode = alone(dep.prefill), alone(dep.decode)
    if not (prefill.runs and decode.runs):
        return replace(decode if not decode.runs else prefill, workload=workload)
    out_tokens, in_tokens = workload.requests.mean_output_tokens, workload.requests.mean_input_tokens
    prompt_s = in_tokens / prefill.prefill_tokens_per_s_per_gpu / dep.prefill.replica_gpus
    decode_step_s = decode.batch / decode.decode_tokens_per_s_per_gpu / dep.decode.replica_gpus
    rate = min(dep.prefill.dp / prompt_s, dep.decode.dp * decode.batch / decode_step_s / out_tokens)
    per_gpu = rate * out_tokens / dep.gpus
    meets = prompt_s * 1e3 <= workload.slo.ttft_ms and decode_step_s * 1e3 <= workload.slo.tpot_ms
    point = replace(next(p for p in decode.curve if p.batch == decode.batch), ttft_ms=prompt_s * 1e3,
                    tpot_ms=decode_step_s * 1e3, output_tokens_per_s_per_gpu=per_gpu, meets_slo=meets)
    return replace(decode, workload=workload, ttft_ms=point.ttft_ms, tpot_ms=point.tpot_ms,
                   curve=(point,) if curve else (), meets_slo=meets, output_tokens_per_s_per_gpu=per_gpu)
