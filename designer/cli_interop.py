"""``import`` and the data formats of ``export`` (core/interop/ does the work).

Kept apart from designer/cli.py, which only registers them: ``import ibnetdiscover`` reads a
fabric dump into a project; ``export`` writes GraphML, diagrams.net and ibnetdiscover topology
files by the output's extension, and the diagram formats through designer/export.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

from core.interop.exports import DATA_FORMATS  # noqa: F401 - cli.py dispatches on it


def add_import_command(sub, make_subcommand) -> None:
    parser = make_subcommand(
        sub, "import", "make a project from a running fabric",
        "Make a project from what a fabric holds. ibnetdiscover: the dump of an InfiniBand fabric "
        "(ibnetdiscover > fabric.txt); HCAs are grouped into hosts by node description, switches "
        "by GUID, cables by port pair at their speed, and identical pods are folded into one "
        "block repeated N times.",
        "cluster-designer import ibnetdiscover fabric.txt --server DGX-H100 -o cluster.json\n"
        "cluster-designer import ibnetdiscover fabric.txt --map map.json -o cluster.json")
    kinds = parser.add_subparsers(dest="source", metavar="SOURCE", help="what to read")
    kinds.required = True
    ib = make_subcommand(
        kinds, "ibnetdiscover", "an InfiniBand fabric dump",
        "Read an ibnetdiscover dump. Hosts take the catalog server of --server or of the first "
        "matching rule of --map; switches that name their model (MQM9700...) are recognised, "
        "others take --switch or a --map rule.",
        "cluster-designer import ibnetdiscover fabric.txt --server DGX-H100 --switch QM9700 -o c.json")
    ib.add_argument("dump", metavar="DUMP", help="the ibnetdiscover output (text)")
    ib.add_argument("-o", "--output", required=True, metavar="PROJECT",
                    help="project file to write (.json, atomically)")
    ib.add_argument("--server", metavar="ID", help="catalog server for hosts no --map rule names")
    ib.add_argument("--switch", metavar="ID",
                    help="catalog switch for switches no --map rule names and that do not name their model")
    ib.add_argument("--map", metavar="MAP.json",
                    help="mapping file: {\"hosts\": [{\"match\": REGEX, \"catalog_id\": ID or null}], "
                         "\"switches\": [...]} (null leaves such hosts out)")
    ib.add_argument("--name", metavar="NAME", help="design name (default: from the dump's file name)")


def run_import_command(args) -> int:
    from core.catalog import default_catalog  # noqa: PLC0415
    from core.interop.fabric_import import design_from_fabric  # noqa: PLC0415
    from core.interop.fabric_map import fabric_map  # noqa: PLC0415
    from core.interop.ibnetdiscover import read_ibnetdiscover  # noqa: PLC0415
    from core.project import save_project  # noqa: PLC0415

    catalog = default_catalog()
    mapping = fabric_map(args.map, catalog, args.server, args.switch)
    dump = read_ibnetdiscover(args.dump)
    design, summary = design_from_fabric(dump, catalog, mapping, args.name or "")
    save_project(design, args.output)
    sys.stderr.write(f"cluster-designer: {summary.text()}\n")
    return 0


def export_data(design, output: Path, level: str) -> None:
    """Write ``design`` as the data format ``output``'s extension names."""
    from core.catalog import default_catalog  # noqa: PLC0415
    from core.interop.exports import write_data_export  # noqa: PLC0415

    write_data_export(design, default_catalog(), output, level)
