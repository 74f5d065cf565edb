import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest

from core.catalog import load_catalog


@pytest.fixture(scope="session")
def catalog():
    return load_catalog(include_user=False)
