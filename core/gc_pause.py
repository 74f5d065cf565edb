"""Building millions of objects without the cyclic garbage collector's repeated passes.

A project file of a cluster imported device by device holds 1.5 million links: parsing it and
building the model allocates several million containers, and every 700 allocations CPython
starts a collection that (in its older generations) walks the whole growing heap. Nothing built
while loading or saving forms reference cycles that need collecting, so the collector waits
until the bulk work is done: a 100,580-component file loads in about 10 s instead of 12
(bench/bench_separate.py).
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def gc_paused() -> Iterator[None]:
    """Run the body with the cyclic collector off, restoring its previous state afterwards."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
