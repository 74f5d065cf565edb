"""Run a sweep: every combination of a spec, evaluated on a local process pool or a Dask cluster.

Combinations travel in chunks (``chunk_size``): one task evaluates several designs, so what a
task costs to schedule and pickle is paid once per chunk, while chunks stay small enough that
the progress bar moves and the workers finish together.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from core.process_pool import ProcessPoolBroken, completed_in_processes, default_workers
from core.sweep.recipe import evaluate_recipes
from core.sweep.spec import SweepSpec

BACKENDS = ("local", "dask")
# A 16k-GPU design evaluates in about 50-100 ms: 8 designs make a task of under a second.
MAX_CHUNK = 8
CHUNKS_PER_WORKER = 4  # at least: the last chunks of a sweep then leave no worker idle long
# Starting the worker processes (spawn, then numpy, scipy and the engine imported in each) takes
# about 1.5 s on the 2-core reference machine (bench/bench_sweep.py): 200 16k-GPU designs take
# less than that in one process, so small sweeps do not start a pool at all.
POOL_START_S = 1.5


def chunk_size(combinations: int, workers: int) -> int:
    return max(1, min(MAX_CHUNK, combinations // (workers * CHUNKS_PER_WORKER)))


def run_sweep(spec: SweepSpec, jobs: int | None = None, backend: str = "local",
              scheduler: str | None = None,
              progress: Callable[[int], None] | None = None) -> tuple[list[dict], list[dict]]:
    """(recipes, outcomes) of every combination, in cross-product order. ``jobs``: worker
    processes at most (default: the cores available; 1 runs in this process; a sweep shorter
    than the pool's start-up runs here whatever ``jobs`` says); ``backend`` "dask" runs
    on the cluster at ``scheduler`` (else a local one of ``jobs`` workers). ``progress(n)`` is
    called as each chunk of n designs finishes."""
    if backend not in BACKENDS:
        raise ValueError(f"backend {backend!r} is not one of {BACKENDS}")
    workers = jobs or default_workers()
    recipes = list(spec.recipes())
    size = chunk_size(len(recipes), workers)
    chunks = [recipes[i:i + size] for i in range(0, len(recipes), size)]
    outcomes: list[Any] = [None] * len(chunks)

    def done(index: int, chunk_outcomes: list[dict]) -> None:
        outcomes[index] = chunk_outcomes
        if progress is not None:
            progress(len(chunk_outcomes))

    if backend == "dask":
        from core.sweep.dask_backend import run_on_dask  # noqa: PLC0415 - an optional extra

        run_on_dask(chunks, done, scheduler, workers)
    else:
        _run_locally(chunks, done, workers)
    return recipes, [outcome for chunk in outcomes for outcome in chunk]


def worth_a_pool(first_chunk_s: float, chunks_left: int, workers: int) -> bool:
    """Whether ``workers`` processes finish the chunks left sooner than this one process, given
    how long the first chunk took here: the pool saves (1 - 1/workers) of the serial time and
    costs its start-up."""
    serial_s = first_chunk_s * chunks_left
    return workers > 1 and serial_s * (1 - 1 / workers) > POOL_START_S


def _run_locally(chunks: list[list[dict]], done: Callable[[int, list[dict]], None],
                 workers: int) -> None:
    """The first chunk runs here and is timed; the rest go to ``workers`` processes when that
    is faster (``worth_a_pool``), else run here too."""
    start = time.perf_counter()
    done(0, evaluate_recipes(chunks[0]))
    rest = range(1, len(chunks))
    finished: set[int] = set()
    if worth_a_pool(time.perf_counter() - start, len(rest), workers):
        try:
            for index, chunk_outcomes in completed_in_processes(
                    evaluate_recipes, [chunks[i] for i in rest], workers):
                done(index + 1, chunk_outcomes)
            return
        except ProcessPoolBroken as exc:
            # No processes here (a script without a __main__ guard) or a worker died (out of
            # memory): what is left runs in this process rather than losing the sweep.
            finished = {index + 1 for index in exc.done}
    for index in rest:
        if index not in finished:
            done(index, evaluate_recipes(chunks[index]))
