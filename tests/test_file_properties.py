"""Property tests over the project schema (a small, seeded version of bench/fuzz.py).

* random valid designs (built in code) save and load back exactly;
* anything code tries to build either is refused when built, or saves to a file that loads;
* random mutations of the bundled examples either load, evaluate and report, or are refused
  with the project's one-line error naming the file - never any other exception.
"""

import copy
import json
import string
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from core.assumptions import Assumptions
from core.catalog import load_catalog
from core.errors import DesignError
from core.evaluate import evaluate, evaluation_to_json
from core.model import LINK_KINDS, MEDIA, Block, Design, Link, Node
from core.project import design_to_dict, load_project, save_project
from core.report import FORMATS, render_report
from core.settings import settings_from_dict
from core.workload import list_presets, load_preset

CATALOG = load_catalog(include_user=False)
COMPONENT_IDS = ["DGX-H100", "DGX-B200", "GB200-NVL72", "QM9700", "SN5600", "AI400X2", "ConnectX-7"]
EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "resources" / "examples"
# The 100,000-GPU example is left to bench/fuzz.py: its evaluations would dominate the run.
EXAMPLES = {p.name: json.loads(p.read_text()) for p in sorted(EXAMPLES_DIR.glob("*.json"))
            if p.name != "h100-100k.json"}


def examples(n: int) -> int:
    """``n`` in CI; more when a profile asks for more (HYPOTHESIS_PROFILE=explore, tests/conftest.py)."""
    return max(n, settings.default.max_examples)


MUTATION_SETTINGS = settings(max_examples=examples(150),
                             suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

ids = st.text(string.ascii_letters + string.digits + "_.-", min_size=1, max_size=12)
text = st.text(max_size=24)  # Hypothesis draws no lone surrogates; a file cannot hold them
coordinates = st.floats(-1e9, 1e9, allow_nan=False)
json_scalars = (st.none() | st.booleans() | st.integers(-2**63, 2**63) | text
                | st.floats(allow_nan=False, allow_infinity=False))
metadata = st.dictionaries(st.text(max_size=8), st.recursive(
    json_scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8), max_size=4)


def nodes(node_id: str):
    return st.builds(
        Node, id=st.just(node_id), catalog_id=st.sampled_from(COMPONENT_IDS), count=st.integers(1, 64),
        name=text, x=coordinates, y=coordinates, tier=st.sampled_from(["", "leaf", "spine", "core"]),
        overrides=st.dictionaries(st.sampled_from(["max_power_kw", "failure_rate_per_1000_days"]),
                                  st.floats(0, 1e12)))


@st.composite
def blocks(draw, block_id: str = "root", depth: int = 0):
    block = Block(block_id, draw(text), draw(st.integers(1, 4)), x=draw(coordinates), y=draw(coordinates),
                  collapsed=draw(st.booleans()), role=draw(st.sampled_from(["", "rack", "su"])))
    paths = []
    for child_id in draw(st.lists(ids, max_size=4, unique=True)):
        if depth < 2 and draw(st.booleans()):
            child = draw(blocks(child_id, depth + 1))
            paths += [f"{child_id}/{path}" for path, _ in child.iter_nodes()]
        else:
            child = draw(nodes(child_id))
            paths.append(child_id)
        block.children[child_id] = child
    if len(paths) >= 2:
        for n in range(draw(st.integers(0, 3))):
            a, b = draw(st.lists(st.sampled_from(paths), min_size=2, max_size=2, unique=True))
            block.links.append(Link(
                f"l{n}", a, b, draw(st.sampled_from(LINK_KINDS)), draw(st.floats(1e-3, 1e6)),
                draw(st.integers(1, 512)), draw(st.floats(0, 1e6)), draw(st.sampled_from(MEDIA))))
    return block


@st.composite
def changed_assumptions(draw):
    """None, or assumptions with a few values changed within their bounds."""
    if draw(st.booleans()):
        return None
    raw = {"power": {"pue": draw(st.none() | st.floats(1.0, 3.0))},
           "reliability": {"restart_min": draw(st.floats(0.0, 1e12)),
                           "checkpoint_mode": draw(st.sampled_from(["async", "sync"]))},
           "network": {"nic_efficiency": draw(st.floats(0.0, 1.0, exclude_min=True))},
           "performance": {"gemm_efficiency_scale_by_accelerator":
                           draw(st.dictionaries(st.sampled_from(["B200", "H100-SXM5-80GB"]),
                                                st.floats(0.0, 1.0, exclude_min=True)))}}
    return settings_from_dict(Assumptions, raw, "$.assumptions")


designs = st.builds(Design, name=text, root=blocks(), metadata=metadata, assumptions=changed_assumptions(),
                    workload=st.none() | st.sampled_from(sorted(list_presets())).map(load_preset))


@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.too_slow])
@given(designs)
def test_random_valid_designs_round_trip_exactly(design):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.json"
        save_project(design, path)
        loaded = load_project(path, CATALOG)
    assert loaded.content_equal(design)
    assert design_to_dict(loaded) == design_to_dict(design)


anything = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8), st.binary(max_size=4),
    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3), st.floats(), max_size=2),
    st.sampled_from([2**63, 10**4000, float("nan"), float("inf"), -0.0, 2.5, 0, -1, "", "a b"]))


@settings(max_examples=examples(200))
@given(st.sampled_from(["id", "catalog_id", "count", "name", "x", "y", "tier", "overrides"]), anything,
       st.sampled_from(["kind", "speed_gbit_s", "count", "length_m", "medium", "a", "b"]), anything)
def test_what_code_can_build_saves_to_a_file_that_loads(node_field, node_value, link_field, link_value):
    try:
        node = Node(**{"id": "n", "catalog_id": "DGX-H100", node_field: node_value})
        link = Link(**{"id": "l", "a": "n", "b": "leaf", link_field: link_value})
    except DesignError:
        return
    root = Block("root", children={node.id: node, "leaf": Node("leaf", "QM9700")})
    if {link.a, link.b} == {node.id, "leaf"}:
        root.links.append(link)
    design = Design("api", root)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "p.json"
        try:
            save_project(design, path)
        except DesignError:  # e.g. a design too large to hold; nothing may be written then
            assert not path.exists()
            return
        assert load_project(path).content_equal(design)


def _locations(doc):
    out, stack = [], [doc]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for key, value in items:
            out.append((node, key))
            stack.append(value)
    return out


values = st.one_of(
    st.integers(-3, 64), st.sampled_from([2**63, 10**12, -(2**63), 10**30, 4 * 10**7]),
    st.floats(), st.text(max_size=12), st.none(), st.booleans(), st.sampled_from(COMPONENT_IDS),
    st.lists(st.integers(0, 3), max_size=3), st.dictionaries(st.text(max_size=4), st.integers(0, 3), max_size=2))


@st.composite
def mutated_files(draw, bases: dict) -> bytes:
    """One of ``bases`` (name -> document) with one or two edits, and sometimes a byte edit."""
    doc = copy.deepcopy(bases[draw(st.sampled_from(sorted(bases)))])
    for _ in range(draw(st.integers(1, 2))):
        container, key = draw(st.sampled_from(_locations(doc)))
        action = draw(st.sampled_from(["set", "set", "set", "delete", "duplicate"]))
        if action == "set":
            container[key] = draw(values)
        elif action == "delete":
            del container[key]
        elif isinstance(container, list):
            container.insert(key, copy.deepcopy(container[key]))
    data = json.dumps(doc, indent=1, allow_nan=True).encode()
    if draw(st.integers(0, 3)) == 0:  # a quarter of the files get a byte-level edit too
        position = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["insert", "truncate", "bom", "utf16", "digits", "nesting"]))
        if edit == "insert":
            data = data[:position] + draw(st.binary(min_size=1, max_size=6)) + data[position:]
        elif edit == "truncate":
            data = data[:position]
        elif edit == "bom":
            data = b"\xef\xbb\xbf" + data
        elif edit == "utf16":
            data = data.decode().encode("utf-16")
        elif edit == "digits":
            data = data[:position] + b"9" * 5000 + data[position:]
        else:
            data = data[:position] + b"[" * 20_000 + data[position:]
    return data


@MUTATION_SETTINGS
@given(mutated_files(EXAMPLES), st.booleans())
def test_mutated_files_load_and_evaluate_or_are_refused_with_a_located_error(data, with_catalog):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "mutant.json"
        path.write_bytes(data)
        try:
            design = load_project(path, CATALOG if with_catalog else None)  # the GUI, the CLI
        except DesignError as exc:
            event("refused when loaded")
            assert "\n" not in str(exc) and "mutant.json" in str(exc)
            return
        try:
            evaluation = evaluate(design, CATALOG)
        except DesignError as exc:  # e.g. an unknown component id when loaded without the catalog
            event("refused when evaluated")
            names = [p for p, _ in design.root.iter_nodes()] + [p for p, _ in design.root.iter_blocks()]
            assert "\n" not in str(exc) and any(name in str(exc) for name in names), str(exc)
            return
        event("loaded and evaluated")
        json.dumps(evaluation_to_json(evaluation), allow_nan=False)
        for fmt in FORMATS:
            render_report(evaluation, fmt)
        save_project(design, Path(folder) / "saved.json")
        assert load_project(Path(folder) / "saved.json", CATALOG).content_equal(design)


WORKLOADS = {name: json.loads(path.read_text()) for name, path in list_presets().items()}
SMALL_DESIGN = load_project(EXAMPLES_DIR / "dgx-h100-superpod-4su.json", CATALOG)


@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.too_slow])
@given(mutated_files(WORKLOADS))
def test_mutated_workload_files_evaluate_or_are_refused_with_a_located_error(data):
    from core.workload import load_workload  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "w.json"
        path.write_bytes(data)
        try:
            workload = load_workload(path)  # cluster-designer evaluate --workload w.json
        except DesignError as exc:
            event("refused")
            assert "\n" not in str(exc) and "w.json" in str(exc)
            return
        event("evaluated")
        evaluation = evaluate(SMALL_DESIGN, CATALOG, workload)
        json.dumps(evaluation_to_json(evaluation), allow_nan=False)
        for fmt in FORMATS:
            render_report(evaluation, fmt)


def _user_catalog() -> dict:
    """The built-in servers, switches and NICs renamed ``u-...``: a user catalog to mutate."""
    entries = [s.to_json() for s in CATALOG if s.id in ("DGX-H100", "H100-SXM5-80GB", "ConnectX-7", "QM9700")]
    for entry in entries:
        for key in ("id", "accelerator", "nic"):
            if isinstance(entry.get(key), str):
                entry[key] = "u-" + entry[key]
    return {"user": {"components": entries}}


@settings(max_examples=examples(100), suppress_health_check=[HealthCheck.too_slow])
@given(mutated_files(_user_catalog()))
def test_mutated_user_catalogs_evaluate_or_are_refused_with_a_located_error(data):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "user-catalog.json"
        path.write_bytes(data)
        try:
            catalog = load_catalog([path], include_user=False)
        except DesignError as exc:
            event("refused")
            assert "\n" not in str(exc) and "user-catalog.json" in str(exc)
            return
        root = Block("root", children={"nodes": Node("nodes", "u-DGX-H100", 32),
                                       "leaf": Node("leaf", "u-QM9700", 8)},
                     links=[Link("l1", "nodes", "leaf", count=256)])
        try:
            evaluation = evaluate(Design("user parts", root, workload=load_preset("gpt3-175b")), catalog)
        except DesignError as exc:  # the mutation removed or retyped a part the design uses
            event("design refused")
            assert "\n" not in str(exc)
            return
        event("evaluated")
        json.dumps(evaluation_to_json(evaluation), allow_nan=False)
        for fmt in FORMATS:
            render_report(evaluation, fmt)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_survives_the_round_trip_unchanged(name, tmp_path):
    path = tmp_path / name
    path.write_text(json.dumps(EXAMPLES[name]))
    design = load_project(path, CATALOG)
    save_project(design, tmp_path / "again.json")
    assert load_project(tmp_path / "again.json", CATALOG).content_equal(design)


def _assumption_edges() -> list[tuple[str, str, object]]:
    """(section, field, value) for both ends of every scalar assumption's allowed range."""
    import dataclasses  # noqa: PLC0415
    import typing  # noqa: PLC0415

    from core.settings import DEFAULT_INT_MAX, DEFAULT_MAX, setting_bounds  # noqa: PLC0415

    edges = []
    hints = typing.get_type_hints(Assumptions)
    for section in dataclasses.fields(Assumptions):
        cls = hints[section.name]
        for f in dataclasses.fields(cls):
            annotation, bounds = typing.get_type_hints(cls)[f.name], setting_bounds(cls, f.name)
            if "choices" in bounds or annotation is bool:
                values = list(bounds.get("choices", (True, False)))
            elif annotation in (int, float) or str(annotation) == "float | None":
                whole = annotation is int
                step = 1 if whole else 1e-9
                low = bounds.get("min", 0) + (step if bounds.get("min_exclusive") else 0)
                high = bounds.get("max", DEFAULT_INT_MAX if whole else DEFAULT_MAX) \
                    - (step if bounds.get("max_exclusive") else 0)
                values = [low, high]
            else:
                continue  # tables and per-accelerator maps: covered by the mutation tests
            edges += [(section.name, f.name, value) for value in values]
    return edges


@settings(max_examples=examples(40), suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_assumption_edges()), min_size=1, max_size=12))
def test_assumptions_at_the_ends_of_their_ranges_evaluate(edges):
    raw: dict = {}
    for section, name, value in edges:
        raw.setdefault(section, {})[name] = value
    design = SMALL_DESIGN.snapshot()
    design.assumptions = settings_from_dict(Assumptions, raw, "$.assumptions")
    evaluation = evaluate(design, CATALOG)
    json.dumps(evaluation_to_json(evaluation), allow_nan=False)
    for fmt in FORMATS:
        render_report(evaluation, fmt)
