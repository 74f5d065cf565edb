"""Importing an InfiniBand fabric dump (ibnetdiscover): parsing, folding, mapping, errors.

The dumps: the ibnetdiscover(8) man page's real SDR fabric, a dump in the layout of a
production EDR cluster (tests/data/ibnetdiscover/SOURCES.md), and dumps written from generated
designs (core/interop/ibnetdiscover_write.py), which must import back into designs that evaluate
exactly like the generated ones.
"""

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from core.errors import DesignError
from core.evaluate import evaluate, evaluation_to_json
from core.generators import FatTreeOptions, generate_fat_tree
from core.interop.fabric_import import design_from_fabric, host_name
from core.interop.fabric_map import fabric_map
from core.interop.ibnetdiscover import parse_ibnetdiscover
from core.interop.ibnetdiscover_read import parse_fast, read_ibnetdiscover
from core.interop.ibnetdiscover_write import ibnetdiscover_text, speed_token
from designer.cli import main

DATA = Path(__file__).parent / "data" / "ibnetdiscover"
# Every figure of these sections depends only on the devices, their cables and the cables' speeds
# and lengths, all of which the dump and the import carry.
SECTIONS = ("counts", "bandwidth", "latency", "power", "reliability", "cost")


def generate(template, catalog, **options):
    assert template == "fat-tree"
    return generate_fat_tree(FatTreeOptions(**options), catalog)


def _sections(design, catalog) -> dict:
    data = evaluation_to_json(evaluate(design, catalog))
    out = {section: data[section] for section in SECTIONS}
    # a single point of failure is named by its block's id, and the generator numbers a last,
    # partly filled block by position ("su-2") where the import numbers it by kind ("su-1")
    out["reliability"]["spof_components"] = len(out["reliability"]["spof_components"])
    # the same problems too: a fabric folded with its links' ends the wrong way round is wired
    # into parts (FABRIC_PARTITIONED) though every count agrees
    out["warnings"] = sorted(w["code"] for w in data["warnings"])
    return out


def _same(a, b) -> bool:
    """Equal evaluations, numbers to 1e-9 (an import sums the same terms in another order)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, float) and isinstance(b, (int, float)):
        return b == pytest.approx(a, rel=1e-9)
    return a == b


def _round_trip(design, catalog, server: str):
    dump = parse_ibnetdiscover(ibnetdiscover_text(design, catalog).splitlines(), "planned.topo")
    return design_from_fabric(dump, catalog, fabric_map(None, catalog, server_id=server))


# --- the parser on real dumps ----------------------------------------------------------------

def test_man_page_example_reads_as_its_fabric():
    dump = read_ibnetdiscover(DATA / "manpage-example.txt")
    assert len(dump.of_kind("switch")) == 2 and len(dump.of_kind("ca")) == 4
    # 5 + 4 switch port lines and 5 CA port lines name 7 distinct cables
    assert len(dump.cables) == 7
    # the man page prints one inter-switch link 4xSDR at one end and 1xSDR at the other: the
    # link runs at the lower, 2.5 Gb/s
    speeds = sorted(speed for *_, speed in dump.cables)
    assert speeds.count(2.5) == 2 and speeds.count(10.0) == 5


def test_man_page_hcas_with_the_default_description_are_hosts_of_their_own(catalog):
    dump = read_ibnetdiscover(DATA / "manpage-example.txt")
    design, summary = design_from_fabric(dump, catalog, fabric_map(None, catalog, "DGX-A100", "QM8700"))
    # four HCAs all described "MT23108 InfiniHost Mellanox Technologies": four hosts, not one
    assert summary.hosts == 4 and summary.switches == 2 and summary.cables == 7
    # both switches reach hosts: a one-tier fabric, drawn flat
    assert {n.tier for _, n in design.root.iter_nodes() if n.catalog_id == "QM8700"} == {"leaf"}


def test_host_names_drop_the_hca_name():
    assert host_name("node018 HCA-1", 1) == "node018"
    assert host_name("controller mlx5_0", 1) == "controller"
    assert host_name("dgx-017 mlx5_7", 1) == "dgx-017"
    assert host_name("MT23108 InfiniHost Mellanox Technologies", 0xAB, shared=True) == "hca-00000000000000ab"
    assert host_name("", 0xAB) == "hca-00000000000000ab"


def test_production_layout_folds_identical_pods(catalog, tmp_path):
    mapping = tmp_path / "map.json"
    mapping.write_text(json.dumps({"format": "cluster-designer.fabric-map/1",
                                   "hosts": [{"match": "^(login|controller)", "catalog_id": None},
                                             {"match": "^gpu", "catalog_id": "DGX-A100"}],
                                   "switches": [{"match": "SwitchIB", "catalog_id": "QM8700"}]}))
    dump = read_ibnetdiscover(DATA / "edr-two-tier.txt")
    design, summary = design_from_fabric(dump, catalog, fabric_map(mapping, catalog))
    assert summary.hosts == 12 and summary.hosts_left_out_count == 2
    assert set(summary.hosts_left_out) == {"login01", "controller"}
    # three leaf pods; the one whose uplink trained down to 4xDDR is a kind of its own
    assert summary.pods == 3 and summary.pod_kinds == 2
    blocks = {path: block.count for path, block in design.root.iter_blocks()}
    assert sorted(blocks.values()) == [1, 2]
    links = [link for _, block in design.root.iter_blocks() for link in block.links] + design.root.links
    assert sum(link.count for link in design.root.links) == 18          # 3 leaves x 6 uplinks
    assert sorted({link.speed_gbit_s for link in links}) == [20.0, 100.0]  # 4xDDR and 4xEDR
    counts = _sections(design, catalog)["counts"]
    assert counts["servers"] == 12 and counts["switches_by_tier"] == {"leaf": 3, "spine": 2}


# --- round trips through generated designs ---------------------------------------------------

@pytest.mark.parametrize("options", [
    dict(gpus=512, server="DGX-H100", switch="QM9700"),
    dict(gpus=1024, server="DGX-H100", switch="QM9700", tiers=3),
    dict(gpus=2048, server="DGX-A100", switch="QM8700"),
])
def test_generated_fabric_imports_back_to_the_same_evaluation(catalog, options):
    design = generate("fat-tree", catalog=catalog, **options)
    imported, summary = _round_trip(design, catalog, options["server"])
    # as many kinds of pod as the generator drew (a last, partly filled pod is a kind of its own)
    assert summary.pod_kinds == sum(1 for child in design.root.children.values() if hasattr(child, "children"))
    assert _same(_sections(imported, catalog), _sections(design, catalog))


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(servers=st.integers(2, 96), tiers=st.sampled_from(["auto", 3]))
def test_any_fat_tree_imports_back_to_the_same_evaluation(catalog, servers, tiers):
    design = generate("fat-tree", catalog=catalog, gpus=8 * servers, server="DGX-H100", switch="QM9700",
                      tiers=tiers)
    imported, _ = _round_trip(design, catalog, "DGX-H100")
    assert _same(_sections(imported, catalog), _sections(design, catalog))


def test_a_large_dump_folds_into_a_compact_design(catalog):
    design = generate("fat-tree", catalog=catalog, gpus=16384, server="DGX-H100", switch="QM9700")
    imported, summary = _round_trip(design, catalog, "DGX-H100")
    # three tiers of 64-port switches: 16,384 cables at each
    assert summary.hosts == 2048 and summary.switches == 1280 and summary.cables == 3 * 16384
    # 3,328 devices are four components: servers and leaves in a scalable unit, spines in a
    # pod, cores at the top, as the generator draws them
    assert summary.pods == 16 and summary.pod_kinds == 1
    assert sum(1 for _ in imported.root.iter_nodes()) == 4
    assert _sections(imported, catalog)["warnings"] == _sections(design, catalog)["warnings"]


def test_speed_tokens():
    assert [speed_token(s) for s in (100, 200, 400, 800)] == ["4xEDR", "4xHDR", "4xNDR", "4xXDR"]
    with pytest.raises(DesignError, match="not an InfiniBand link speed"):
        speed_token(25.5)


# --- errors: one located line, nothing written -----------------------------------------------

GOOD_SWITCH = ('Switch\t36 "S-0000000000000001"\t# "MF0;leaf01:MQM9700/U1" base port 0 lid 1 lmc 0\n'
               '[1]\t"H-0000000000000002"[1](2)\t# "node1 HCA-1" lid 2 4xNDR\n')


MALFORMED = [
    ("", "no Switch or Ca records"),
    ("hello world\n", "dump:1: not an ibnetdiscover line"),
    ('[1]\t"S-0000000000000001"[1]\t# "x" lid 1 4xNDR\n', "dump:1: a port line before any Switch"),
    (GOOD_SWITCH.replace("4xNDR", ""), "dump:2: the link has no width and speed"),
    (GOOD_SWITCH.replace("[1]\t", "[40]\t"), "dump:2: port [40] of a 36-port switch"),
    (GOOD_SWITCH + '[1]\t"H-0000000000000003"[1](3)\t# "node2 HCA-1" lid 3 4xNDR\n',
     "dump:3: port [1] of MF0;leaf01:MQM9700/U1 is cabled twice"),
    (GOOD_SWITCH + "\n" + GOOD_SWITCH, "dump:4: S-0000000000000001 is listed twice"),
    ('Ca\t1 "S-0000000000000001"\t# "x"\n', "dump:1: a Ca line names a switch id"),
]


@pytest.mark.parametrize("text, message", MALFORMED)
def test_malformed_dumps_are_located(text, message):
    with pytest.raises(DesignError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_ibnetdiscover(text.splitlines(True), "dump")


def test_unmapped_devices_name_the_option_to_use(catalog):
    dump = parse_ibnetdiscover(GOOD_SWITCH.splitlines(), "d.txt")
    with pytest.raises(DesignError, match=r"1 hosts have no catalog server \(e.g. 'node1'\): choose their catalog server \(--server ID\)"):
        design_from_fabric(dump, catalog, fabric_map(None, catalog))
    unknown = parse_ibnetdiscover(GOOD_SWITCH.replace("MQM9700", "XYZ").splitlines(), "d.txt")
    with pytest.raises(DesignError, match=r"switches have no catalog id .*choose their catalog switch \(--switch ID\)"):
        design_from_fabric(unknown, catalog, fabric_map(None, catalog, server_id="DGX-H100"))


@pytest.mark.parametrize("content, message", [
    ("[]", r"\$: expected a JSON object"),
    ('{"hosts": {}}', r"\$.hosts: expected a list"),
    ('{"hosts": [{"match": "(", "catalog_id": null}]}', r"\$.hosts\[0\].match: not a regular expression"),
    ('{"hosts": [{"match": "x", "catalog_id": "QM9700"}]}', r"\$.hosts\[0\].catalog_id: 'QM9700' is a switch"),
    ('{"switches": [{"match": "x", "catalog_id": null}]}', r"\$.switches\[0\].catalog_id: a switch cannot"),
    ('{"racks": []}', r"\$.racks: unknown key"),
    ('{"hosts": [', "invalid JSON"),
])
def test_bad_mapping_files_are_located(catalog, tmp_path, content, message):
    path = tmp_path / "map.json"
    path.write_text(content)
    with pytest.raises(DesignError, match=message):
        fabric_map(path, catalog)


def test_cli_import_writes_a_project_and_a_summary(tmp_path, capsys, catalog):
    out = tmp_path / "c.json"
    assert main(["import", "ibnetdiscover", str(DATA / "manpage-example.txt"), "--server", "DGX-A100",
                 "--switch", "QM8700", "--name", "Lab fabric", "-o", str(out)]) == 0
    assert "4 hosts, 2 switches and 7 cables" in capsys.readouterr().err
    assert json.loads(out.read_text())["name"] == "Lab fabric"


@pytest.mark.parametrize("extra, message", [
    (["--server", "NOPE"], "--server: unknown catalog id 'NOPE'"),
    (["--server", "QM9700"], "--server: 'QM9700' is a switch"),
    ([], "hosts have no catalog server"),
])
def test_cli_import_errors_are_one_line_and_write_nothing(tmp_path, capsys, extra, message):
    out = tmp_path / "c.json"
    assert main(["import", "ibnetdiscover", str(DATA / "manpage-example.txt"), "--switch", "QM8700",
                 *extra, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_cli_import_of_a_missing_or_binary_dump(tmp_path, capsys):
    assert main(["import", "ibnetdiscover", str(tmp_path / "none.txt"), "-o", str(tmp_path / "c.json")]) == 2
    assert "cannot read the dump" in capsys.readouterr().err
    binary = tmp_path / "b.txt"
    binary.write_bytes(bytes(range(256)) * 4)
    assert main(["import", "ibnetdiscover", str(binary), "-o", str(tmp_path / "c.json")]) == 2
    assert "b.txt:1: not an ibnetdiscover line" in capsys.readouterr().err


# --- the quick reader: the same dump as the line-by-line reader, or it steps aside -------------

def _read_both(text: str, tmp_path):
    """(what read_ibnetdiscover gives for ``text`` as a file, what the line-by-line reader gives);
    each a (nodes, cables) pair or the error message."""
    path = tmp_path / "d.txt"
    path.write_text(text)
    out = []
    for read in (lambda: read_ibnetdiscover(path), lambda: parse_ibnetdiscover(text.split("\n"), "d.txt")):
        try:
            dump = read()
            out.append((list(dump.nodes.items()), dump.cables))
        except DesignError as exc:
            out.append(str(exc))
    return out


@pytest.mark.parametrize("name", ["manpage-example.txt", "edr-two-tier.txt"])
def test_quick_reader_reads_real_dumps_as_line_by_line(name, tmp_path):
    text = (DATA / name).read_text()
    assert parse_fast(text, name) is not None  # the quick path takes them
    quick, careful = _read_both(text, tmp_path)
    assert quick == careful and not isinstance(quick, str)


@pytest.mark.parametrize("text, message", MALFORMED)
def test_malformed_dump_files_are_located_the_same(text, message, tmp_path):
    quick, careful = _read_both(text, tmp_path)
    assert quick == careful and message.replace("dump:", "d.txt:") in quick


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(servers=st.integers(2, 40), cut=st.integers(0, 10_000), how=st.sampled_from(
    ["none", "drop", "repeat", "indent", "blank", "swap", "port", "speed", "crlf", "trail"]))
def test_quick_reader_agrees_on_any_dump_and_any_damage(catalog, tmp_path, servers, cut, how):
    design = generate_fat_tree(FatTreeOptions(gpus=8 * servers, server="DGX-H100", switch="QM9700"), catalog)
    lines = ibnetdiscover_text(design, catalog).split("\n")
    k = cut % len(lines)
    if how == "drop":
        del lines[k]
    elif how == "repeat":
        lines.insert(k, lines[k])
    elif how == "indent":
        lines[k] = "  " + lines[k]
    elif how == "blank":
        lines.insert(k, "")
    elif how == "swap":
        lines[k], lines[(k + 7) % len(lines)] = lines[(k + 7) % len(lines)], lines[k]
    elif how == "port":
        lines[k] = lines[k].replace("[1]", "[2]", 1)
    elif how == "speed":
        lines[k] = lines[k].replace("4xNDR", "4xHDR")
    elif how == "crlf":
        lines[k] += "\r"
    elif how == "trail":
        lines[k] += " \t"
    text = "\n".join(lines)
    if how in ("none", "trail"):
        assert parse_fast(text, "d.txt") is not None  # taken by the quick path
    quick, careful = _read_both(text, tmp_path)
    assert quick == careful
