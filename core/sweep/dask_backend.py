"""Sweeps on a Dask cluster (``pip install 'cluster-designer[distributed]'``).

Dask rather than Ray: dask.distributed is a pure-Python wheel for every platform, starts a
real multi-process cluster in-process for tests (``LocalCluster``), connects to an existing one
by address (``dask scheduler`` / ``dask worker`` over SSH, Slurm via dask-jobqueue, Kubernetes)
and needs nothing but our own picklable functions; Ray brings a 60+ MB binary per platform, a
separate object store and its own process manager, which a CPU-only embarrassingly parallel
sweep does not need. Workers of an existing cluster must have cluster-designer installed.
"""

from __future__ import annotations

from collections.abc import Callable

from core.errors import DesignError
from core.sweep.recipe import evaluate_recipes

CONNECT_TIMEOUT_S = 20
# The scheduler always serves HTTP (health, metrics), on :8787 unless told otherwise, even with
# its dashboard off: a free loopback port keeps two sweeps (or another Dask user) from colliding
# and keeps the service off the network.
LOCAL_HTTP_ADDRESS = "127.0.0.1:0"


class DistributedBackendError(DesignError):
    """The distributed backend cannot run (not installed, scheduler unreachable)."""


def run_on_dask(chunks: list[list[dict]], done: Callable[[int, list[dict]], None],
                scheduler: str | None, workers: int) -> None:
    """``done(index, evaluate_recipes(chunks[index]))`` for every chunk, as they finish, on the
    cluster at ``scheduler`` or, without one, on a local cluster of ``workers`` processes."""
    try:
        from dask.distributed import Client, LocalCluster, as_completed  # noqa: PLC0415
    except ImportError:
        raise DistributedBackendError(
            "--backend dask needs dask.distributed: pip install 'cluster-designer[distributed]'") from None
    cluster = None
    try:
        if scheduler:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT_S)
        else:
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   dashboard_address=LOCAL_HTTP_ADDRESS, silence_logs=40)
            client = Client(cluster)
    except OSError as exc:  # TimeoutError included: no scheduler at that address
        raise DistributedBackendError(f"--scheduler {scheduler}: cannot connect ({exc})") from None
    try:
        futures = client.map(evaluate_recipes, chunks, pure=False)
        index_of = {future.key: index for index, future in enumerate(futures)}
        for future in as_completed(futures):
            done(index_of[future.key], future.result())
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
