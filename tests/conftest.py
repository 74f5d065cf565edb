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


@pytest.fixture(scope="session")
def with_prices():
    """``with_prices(catalog, {id: usd})``: ``catalog`` with exactly those prices (every other
    entry unpriced), whether or not the built-in catalog carries prices of its own."""
    import dataclasses

    from core.catalog import Catalog

    def build(catalog, prices):
        from core.catalog_spec import Price

        specs = []
        for spec in catalog:
            price = (Price(usd=prices[spec.id], year=2024, evidence="estimate", source="tests")
                     if spec.id in prices else None)
            specs.append(dataclasses.replace(spec, price=price))
        return Catalog(specs)
    return build


@pytest.fixture(scope="session")
def every_price():
    """A distinct round price for every entry of a catalog: 1,000 USD x its position + 500."""
    return lambda catalog: {spec.id: 1000.0 * i + 500.0 for i, spec in enumerate(catalog)}


@pytest.fixture
def permissions_enforced(tmp_path):
    """Skip the test unless this process is refused writing into a read-only folder: root (or a
    process with CAP_DAC_OVERRIDE) writes anywhere, so chmod cannot make a folder unreadable."""
    probe = tmp_path / "permission-probe"
    probe.mkdir()
    probe.chmod(0o555)
    try:
        (probe / "x").touch()
    except PermissionError:
        return
    finally:
        probe.chmod(0o755)
    pytest.skip("file permissions are not enforced for this process (root)")
