"""``import`` and the data formats of ``export`` (core/interop/ does the work).

Kept apart from designer/cli/command.py, which only registers them: ``import ibnetdiscover`` reads a
fabric dump into a project, ``import nautobot`` a Nautobot location and ``import netbox`` a
NetBox site; ``export`` writes GraphML, diagrams.net and ibnetdiscover topology files by the
output's extension (the diagram formats through designer/window/export.py), or the design to
Nautobot with ``--nautobot URL`` or to NetBox with ``--netbox URL``.

A token comes from ``--token`` or the environment (NAUTOBOT_TOKEN, NETBOX_TOKEN) and goes only
into the request header: it is never printed, logged or written.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


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
    _add_server_import(
        kinds, make_subcommand, "nautobot", "Nautobot", "a location in a Nautobot server",
        "Read a Nautobot location's devices, interfaces and cables (pynautobot).",
        "cluster-designer import nautobot --url https://nautobot.example --location dc1 -o dc1.json")
    _add_server_import(
        kinds, make_subcommand, "netbox", "NetBox", "a site in a NetBox server",
        "Read a NetBox site's devices, interfaces, cables, racks and locations (pynetbox, NetBox "
        "4.x).",
        "cluster-designer import netbox --url https://netbox.example --site dc1 -o dc1.json")


# (option, help, required) naming where in each server the design is read from
_WHERE = {"nautobot": ("--location", "the location (site) to read", True),
          "netbox": ("--site", "the site to read (default: the server's only site)", False)}


def _add_server_import(kinds, make_subcommand, source: str, server: str, summary: str,
                       description: str, example: str) -> None:
    """``import nautobot`` / ``import netbox``: the same options but where to read."""
    sub = make_subcommand(
        kinds, source, summary,
        description + " A device type whose model is a catalog id is that entry; --map, "
        "--server and --switch name the others. The devices fold into repeated blocks as a "
        "fabric dump does.", example)
    where, where_help, required = _WHERE[source]
    sub.add_argument("--url", required=True, metavar="URL", help=f"the {server} server (http or https)")
    sub.add_argument("--token", metavar="TOKEN",
                     help=f"API token (default: ${_TOKEN_VARIABLE[source]}); never written anywhere")
    sub.add_argument(where, required=required, metavar="NAME", help=where_help)
    sub.add_argument("-o", "--output", required=True, metavar="PROJECT",
                     help="project file to write (.json, atomically)")
    sub.add_argument("--server", metavar="ID", help="catalog server for devices no --map rule names")
    sub.add_argument("--switch", metavar="ID", help="catalog switch for switch models not in the catalog")
    sub.add_argument("--map", metavar="MAP.json", help="mapping file, as for ibnetdiscover")
    sub.add_argument("--name", metavar="NAME", help=f"design name (default: the {where[2:]}'s)")


def add_server_export_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--nautobot", metavar="URL",
                        help="write the design to this Nautobot server as planned devices and cables "
                             "(instead of -o)")
    parser.add_argument("--netbox", metavar="URL",
                        help="write the design to this NetBox server as planned racks, devices and "
                             "cables (instead of -o)")
    parser.add_argument("--token", metavar="TOKEN",
                        help="Nautobot or NetBox API token (default: $NAUTOBOT_TOKEN or $NETBOX_TOKEN)")
    parser.add_argument("--location", metavar="NAME",
                        help="Nautobot location to create or fill (default: the design's name); it "
                             "must hold no devices yet")
    parser.add_argument("--netbox-site", metavar="NAME",
                        help="NetBox site to create or fill (default: the design's name); it must "
                             "hold no devices, racks or locations yet (--site picks a floor-plan export)")


_TOKEN_VARIABLE = {"nautobot": "NAUTOBOT_TOKEN", "netbox": "NETBOX_TOKEN"}


def _token(args, source: str) -> str:
    return args.token or os.environ.get(_TOKEN_VARIABLE[source], "")


def run_server_export(args) -> int:
    """``export PROJECT --nautobot URL`` or ``--netbox URL``: the design as planned racks,
    devices and cables in that server."""
    from core.catalog import default_catalog  # noqa: PLC0415
    from core.project import load_project  # noqa: PLC0415

    catalog = default_catalog()
    design = load_project(args.project, catalog)
    if args.nautobot:
        from core.interop.nautobot import connect, export_to_nautobot as export  # noqa: PLC0415
        url, source, where = args.nautobot, "nautobot", args.location
    else:
        from core.interop.netbox import connect, export_to_netbox as export  # noqa: PLC0415
        url, source, where = args.netbox, "netbox", args.netbox_site
    summary = export(design, catalog, connect(url, _token(args, source)), url, where)
    sys.stderr.write(f"cluster-designer: {summary.text()}\n")
    return 0


def run_import_command(args) -> int:
    from core.catalog import default_catalog  # noqa: PLC0415
    from core.interop.fabric_import import design_from_fabric  # noqa: PLC0415
    from core.interop.fabric_map import fabric_map  # noqa: PLC0415
    from core.interop.ibnetdiscover_read import read_ibnetdiscover  # noqa: PLC0415
    from core.project import save_project  # noqa: PLC0415

    catalog = default_catalog()
    mapping = fabric_map(args.map, catalog, args.server, args.switch)
    if args.source == "nautobot":
        from core.interop.nautobot import connect, design_from_nautobot  # noqa: PLC0415
        api = connect(args.url, _token(args, "nautobot"))
        design, summary = design_from_nautobot(api, args.url, catalog, args.location, mapping,
                                               args.name or "")
    elif args.source == "netbox":
        from core.interop.netbox import connect as netbox, design_from_netbox  # noqa: PLC0415
        api = netbox(args.url, _token(args, "netbox"))
        design, summary = design_from_netbox(api, args.url, catalog, args.site, mapping, args.name or "")
    else:
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
