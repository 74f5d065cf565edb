import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
from hypothesis import HealthCheck, settings

from core.catalog import load_catalog

# Property tests run the same examples on every machine (a red CI run can be replayed), with no
# per-example deadline (a 2-core CI box is slow and noisy). HYPOTHESIS_PROFILE=explore searches
# afresh with more examples when hunting for new failures.
settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", max_examples=2000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")
def catalog():
    return load_catalog(include_user=False)
