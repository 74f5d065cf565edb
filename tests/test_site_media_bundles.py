"""Media picked per bundle (the fast path core/site/cables.py takes) are the media picked per
run: classing runs by their bundle's speed and family must not move a single cable's medium."""

import numpy as np
from hypothesis import given, strategies as st

from core.site.media import choose_bundle_media, choose_media

SPEEDS = [100.0, 200.0, 300.0, 400.0, 800.0, 1200.0, 1600.0]


@given(st.lists(st.tuples(st.sampled_from(SPEEDS), st.booleans()), min_size=1, max_size=6),
       st.lists(st.tuples(st.integers(0, 5), st.floats(0.0, 3000.0)), max_size=60))
def test_bundle_media_are_the_per_run_media(bundles, runs):
    speed = np.array([s for s, _ in bundles])
    fibre = np.array([f for _, f in bundles])
    bundle = np.array([b % len(bundles) for b, _ in runs], dtype=np.int32)
    length = np.array([m for _, m in runs])
    per_run = choose_media(length, speed[bundle], fibre[bundle])
    per_bundle = choose_bundle_media(length, bundle, speed, fibre)
    assert per_bundle[0].tolist() == per_run[0].tolist()
    assert per_bundle[1].tolist() == per_run[1].tolist()
