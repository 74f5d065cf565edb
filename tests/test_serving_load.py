"""The load model of serving (core/analysis/serving_load.py) on hand numbers: continuous batching
in an aggregated replica (Little's law, the prefill share of the replica's time, TPOT and TTFT
at load), the two pools of a disaggregated deployment, and the shape of a request mix."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.analysis.serving_load import (PrefillPool, aggregated_load, disaggregated_load,
                                        mix_shape)
from core.inference_workload import RequestClass, RequestMix

ONE = mix_shape(RequestMix.single(1000, 100))


def test_aggregated_replica_on_hand_numbers():
    # 4 sequences, a 20 ms decode step, a 100 ms prefill per request, 100 output tokens
    load = aggregated_load(ONE, 4, 0.020, (0.100,), replicas=1)
    # TPOT = d + B p / o = 20 ms + 4 x 100 ms / 100 = 24 ms
    assert load.tpot_s == pytest.approx(0.024)
    # Little: 4 sequences of 100 tokens at 24 ms a token: 4 / 2.4 s = 1.667 requests/s
    assert load.requests_per_s == pytest.approx(4 / 2.4)
    assert load.output_tokens_per_s == pytest.approx(4 / 2.4 * 100)
    # k = B p / (o d) = 0.4 / 2 = 0.2; f = k / (1 + k) = 1/6 of the replica's time in prefill
    assert load.prefill_time_fraction == pytest.approx(0.2 / 1.2)
    # M/D/1 with vacations: W = lambda p^2 / (2 (1 - f)) + d / 2 = 10 ms + 10 ms
    wait = (4 / 2.4) * 0.100**2 / (2 * (1 - 1 / 6)) + 0.010
    assert wait == pytest.approx(0.020)
    assert load.ttft_s == pytest.approx(0.120) and load.ttft_s_by_class == pytest.approx((0.120,))
    assert load.decode_step_s == 0.020 and load.limited_by is None


def test_replicas_multiply_the_throughput_not_the_latency():
    one = aggregated_load(ONE, 8, 0.03, (0.2,), replicas=1)
    four = aggregated_load(ONE, 8, 0.03, (0.2,), replicas=4)
    assert four.output_tokens_per_s == pytest.approx(4 * one.output_tokens_per_s)
    assert (four.tpot_s, four.ttft_s) == (one.tpot_s, one.ttft_s)


def test_a_mix_waits_in_one_queue_whose_wait_grows_with_the_second_moment_of_prefill():
    mix = mix_shape(RequestMix((RequestClass(500, 100, 0.5), RequestClass(4000, 100, 0.5))))
    load = aggregated_load(mix, 10, 0.02, (0.05, 0.35), replicas=1)
    p_mean, p_sq = 0.2, 0.5 * 0.05**2 + 0.5 * 0.35**2
    tpot = 0.02 + 10 * p_mean / 100
    rate = 10 / (100 * tpot)
    f = rate * p_mean
    wait = rate * p_sq / (2 * (1 - f)) + 0.01
    assert load.tpot_s == pytest.approx(tpot)
    assert load.ttft_s_by_class == pytest.approx((wait + 0.05, wait + 0.35))
    assert load.ttft_s == pytest.approx(wait + p_mean)  # the share-weighted mean
    # the same mean prefill without spread waits less (M/D/1 beats M/G/1)
    even = aggregated_load(mix, 10, 0.02, (0.2, 0.2), replicas=1)
    assert even.ttft_s < load.ttft_s


def test_mix_shape_weighs_the_batch_by_share_times_output_tokens():
    mix = mix_shape(RequestMix((RequestClass(512, 128, 0.75), RequestClass(8192, 1024, 0.25))))
    assert mix.mean_input_tokens == 0.75 * 512 + 0.25 * 8192  # 2,432 per arriving request
    assert mix.mean_output_tokens == 0.75 * 128 + 0.25 * 1024  # 352
    # in flight: 96 / 352 of the sequences are short, 256 / 352 long (Little's law)
    short, long = 96 / 352, 256 / 352
    assert mix.decode_context_tokens == pytest.approx(short * (512 + 64) + long * (8192 + 512))
    assert mix.held_context_tokens == pytest.approx(short * (512 + 128) + long * (8192 + 1024))
    # far above the share-weighted mean context 2,432 + 176: long answers fill the batch
    assert mix.decode_context_tokens > 2.4 * (2432 + 176)
    assert mix.mean((1.0, 3.0)) == pytest.approx(0.75 + 0.75)


def test_a_pipelined_replica_is_occupied_one_stage_step_per_prompt():
    # 2 stages: a 100 ms prefill (both stages) occupies the replica for 50 ms; d = 20 ms is
    # already the 2 stage steps of a micro-batch
    load = aggregated_load(ONE, 4, 0.020, (0.100,), replicas=1, stages=2)
    # TPOT = d + B q / o = 20 ms + 4 x 50 ms / 100 = 22 ms
    assert load.tpot_s == pytest.approx(0.022)
    assert load.requests_per_s == pytest.approx(4 / 2.2)
    assert load.prefill_time_fraction == pytest.approx(4 / 2.2 * 0.050)
    # the wait: lambda q^2 / (2 (1 - f)) + the first stage's half step (d / 2 / 2); then all of p
    f = 4 / 2.2 * 0.050
    wait = 4 / 2.2 * 0.050**2 / (2 * (1 - f)) + 0.020 / 4
    assert load.ttft_s == pytest.approx(wait + 0.100)


def test_a_pipelined_prefill_pool_takes_a_step_in_every_stage_step():
    # 2 replicas of 2 stages, 4 prompts a 200 ms step: a step enters every 100 ms, 80 requests/s
    pool = PrefillPool(2, 4, (0.2,), 0.2, (0.0,), stages=2)
    assert pool.interval_s == pytest.approx(0.1) and pool.requests_per_s == pytest.approx(80.0)
    load = disaggregated_load(ONE, 8, 0.025, 4, pool)  # 12.8 requests/s: decode limits
    # a prompt waits half a stage step while the first stage is busy, then crosses both
    assert load.ttft_s == pytest.approx(12.8 / 80 * 0.1 / 2 + 0.2)


def test_disaggregated_pools_on_hand_numbers_prefill_limits():
    # prefill: 2 replicas, 4 prompts a 200 ms step: 40 requests/s; its step with a prompt of
    # the class: 210 ms; hand-over 5 ms
    pool = PrefillPool(replicas=2, prompts_per_step=4, step_s_by_class=(0.21,), mean_step_s=0.2,
                       transfer_s_by_class=(0.005,))
    assert pool.requests_per_s == pytest.approx(40.0)
    # decode: 4 replicas of 32 sequences, 25 ms a step, 100 tokens: 4 x 32 / 2.5 s = 51.2 /s
    load = disaggregated_load(ONE, 32, 0.025, 4, pool)
    assert load.decode_requests_per_s == pytest.approx(51.2)
    assert load.requests_per_s == pytest.approx(40.0) and load.limited_by == "prefill"
    assert load.output_tokens_per_s == pytest.approx(4000.0)
    assert load.tpot_s == 0.025  # no prefill interleaved in the decode pool
    # the prefill pool is busy all the time: a prompt waits half a step, then its own step
    assert load.ttft_s == pytest.approx(0.1 + 0.21 + 0.005)
    assert load.prefill_time_fraction is None


def test_disaggregated_pools_decode_limits_and_the_prefill_pool_waits_less():
    pool = PrefillPool(2, 4, (0.2,), 0.2, (0.0,))
    load = disaggregated_load(ONE, 8, 0.025, 4, pool)  # 4 x 8 / 2.5 = 12.8 requests/s
    assert load.requests_per_s == pytest.approx(12.8) and load.limited_by == "decode"
    assert load.ttft_s == pytest.approx(12.8 / 40 * 0.2 / 2 + 0.2)


POSITIVE = st.floats(1e-4, 10.0)


@given(batch=st.integers(1, 100_000), d=POSITIVE, p=st.lists(POSITIVE, min_size=1, max_size=4),
       out=st.integers(1, 30_000))
def test_continuous_batching_obeys_littles_law_and_stays_stable(batch, d, p, out):
    classes = tuple(RequestClass(100, out, 1 / len(p)) for _ in p)
    mix = mix_shape(RequestMix(classes))
    load = aggregated_load(mix, batch, d, tuple(p), replicas=1)
    # B sequences in flight, each leaving after o tokens at TPOT apart
    assert load.requests_per_s * mix.mean_output_tokens * load.tpot_s == pytest.approx(batch)
    assert 0 < load.prefill_time_fraction < 1
    assert load.tpot_s >= d and load.output_tokens_per_s <= batch / d * (1 + 1e-12)
    assert all(t >= pi + d / 2 for t, pi in zip(load.ttft_s_by_class, p))
