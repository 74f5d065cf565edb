"""Reshaping the code (issue 24) must not move a number: every bundled example's evaluation JSON,
every workload preset on a bundled design, every bundled sweep's results and two reports are
diffed against tests/golden/data/. Floats agree to 1e-9 relative (numpy may round the last bit
differently between versions); everything else is identical. A change meant to move a number
regenerates the goldens (``python -m tests.golden.regenerate``) and says why in its commit."""

import csv
import io
import math

import pytest

from tests.golden.cases import DATA, cases, load_json, produce, relative

# Wall-clock time of the evaluation itself: the one field that differs run to run.
VOLATILE_KEYS = {"evaluation_ms"}
REL_TOL = 1e-9


def _differences(expected, actual, path="$"):
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual), key=str):
            if key in VOLATILE_KEYS:
                continue
            if key not in actual:
                yield f"{path}.{key}: missing (was {expected[key]!r:.80})"
            elif key not in expected:
                yield f"{path}.{key}: new key ({actual[key]!r:.80})"
            else:
                yield from _differences(expected[key], actual[key], f"{path}.{key}")
    elif isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            yield f"{path}: {len(expected)} items became {len(actual)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            yield from _differences(e, a, f"{path}[{i}]")
    elif (isinstance(expected, float) and isinstance(actual, (int, float))
          and not isinstance(actual, bool)):
        if not math.isclose(expected, actual, rel_tol=REL_TOL, abs_tol=1e-12):
            yield f"{path}: {expected!r} became {actual!r}"
    elif expected != actual or type(expected) is not type(actual):
        yield f"{path}: {expected!r:.80} became {actual!r:.80}"


def _csv_rows(text):
    def cell(value):
        try:
            return float(value)
        except ValueError:
            return value
    return [[cell(v) for v in row] for row in csv.reader(io.StringIO(text))]


@pytest.mark.parametrize("name", sorted(cases()))
def test_output_matches_golden(name, tmp_path, monkeypatch):
    monkeypatch.delenv("CLUSTER_DESIGNER_USER_CATALOG", raising=False)
    out = tmp_path / name
    produce(cases()[name], out)
    golden = DATA / name
    if name.endswith(".json"):
        found = list(_differences(load_json(golden), load_json(out)))
    elif name.endswith(".csv"):
        found = list(_differences(_csv_rows(golden.read_text()), _csv_rows(relative(out.read_text()))))
    else:
        expected, actual = golden.read_text().splitlines(), relative(out.read_text()).splitlines()
        found = [f"line {i + 1}: {e!r} became {a!r}"
                 for i, (e, a) in enumerate(zip(expected, actual)) if e != a]
        if len(expected) != len(actual):
            found.append(f"{len(expected)} lines became {len(actual)}")
    assert not found, f"{name} moved ({len(found)} differences):\n" + "\n".join(found[:25])


def test_every_bundled_input_has_a_golden():
    """A new example, preset or sweep is covered the moment it is bundled."""
    assert sorted(p.name for p in DATA.iterdir()) == sorted(cases())
