"""``cluster-designer`` command line (DESIGN.md "Command line" contract).

Headless subcommands never import Qt except ``export`` (which renders the diagram with Qt's
offscreen platform). Every user error prints one line on stderr and exits with status 2; output
files are written atomically, so a failure leaves no partial file.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from core.errors import DesignError

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "resources" / "examples"
DEFAULT_EXAMPLE = EXAMPLES_DIR / "dgx-h100-superpod-4su.json"
SUBCOMMANDS = ("evaluate", "generate", "export", "catalog")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, no usage dump
        sys.stderr.write(f"cluster-designer: {message}\n")
        raise SystemExit(2)


def _positive_int(text: str) -> int:
    try:
        value = int(text.replace(",", "").replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    return value


def _ratio(text: str) -> float:
    cleaned = text.split(":")[0] if ":" in text else text
    try:
        value = float(cleaned)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a ratio like 2 or 2:1") from None
    return value


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cluster-designer", description="Design AI GPU clusters.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    ev = sub.add_parser("evaluate", help="evaluate a project and print the results")
    ev.add_argument("project")
    ev.add_argument("--workload", help="workload JSON replacing the project's own")
    ev.add_argument("--format", choices=("json", "md", "csv", "html", "bom"), default="json")
    ev.add_argument("-o", "--output", help="write to this file instead of stdout")

    gen = sub.add_parser("generate", help="generate a design from a template")
    gen_sub = gen.add_subparsers(dest="template", parser_class=_Parser)
    ft = gen_sub.add_parser("fat-tree", help="servers on a 2- or 3-tier folded Clos")
    ft.add_argument("--gpus", type=_positive_int, required=True)
    ft.add_argument("--server", required=True)
    ft.add_argument("--switch", required=True)
    ft.add_argument("--tiers", choices=("auto", "2", "3"), default="auto")
    ft.add_argument("--oversubscription", type=_ratio, default=1.0)
    ft.add_argument("--island-gpus", type=_positive_int)
    ft.add_argument("--island-oversubscription", type=_ratio, default=1.0)
    ft.add_argument("--storage")
    ft.add_argument("--storage-nodes", type=_positive_int, default=0)
    ft.add_argument("--ufm", type=_positive_int, default=0, metavar="N",
                    help="UFM fabric-manager appliances on free leaf ports (SuperPOD RA: 4)")
    ft.add_argument("--workload", help="workload preset name or JSON file to embed")
    ft.add_argument("--name")
    ft.add_argument("-o", "--output", required=True)
    sn = gen_sub.add_parser("supernode", help="super-nodes joined by a scale-out fabric")
    sn.add_argument("--system", required=True)
    sn.add_argument("--count", type=_positive_int, required=True)
    sn.add_argument("--switch")
    sn.add_argument("--workload", help="workload preset name or JSON file to embed")
    sn.add_argument("--name")
    sn.add_argument("-o", "--output", required=True)

    ex = sub.add_parser("export", help="export the diagram (svg, png, pdf)")
    ex.add_argument("project")
    ex.add_argument("-o", "--output", required=True)
    ex.add_argument("--width", type=_positive_int, default=1600, help="PNG width in pixels")

    cat = sub.add_parser("catalog", help="list catalog components")
    cat.add_argument("--kind")
    cat.add_argument("--format", choices=("json", "table"), default="table")
    return parser


def _write_output(text: str, output: str | None) -> None:
    if output:
        from core.project import atomic_write_text  # noqa: PLC0415

        atomic_write_text(output, text)
    else:
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")


def _load_workload_arg(value: str):
    from core.workload import list_presets, load_preset, load_workload  # noqa: PLC0415

    if value in list_presets():
        return load_preset(value)
    if not Path(value).exists() and not value.endswith(".json"):
        raise DesignError(
            f"{value!r} is neither a workload file nor a preset (presets: {', '.join(list_presets())})"
        )
    return load_workload(Path(value))


def _cmd_evaluate(args) -> int:
    from core.evaluate import evaluate, evaluation_to_json  # noqa: PLC0415
    from core.project import load_project  # noqa: PLC0415
    from core.report import render_report  # noqa: PLC0415

    design = load_project(args.project)
    workload = _load_workload_arg(args.workload) if args.workload else None
    evaluation = evaluate(design, workload=workload)
    if args.format == "json":
        text = json.dumps(evaluation_to_json(evaluation), indent=2, allow_nan=False)
    else:
        text = render_report(evaluation, args.format)
    _write_output(text, args.output)
    return 0


def _cmd_generate(args) -> int:
    from core.catalog import default_catalog  # noqa: PLC0415
    from core.generators import (  # noqa: PLC0415
        FatTreeOptions, SupernodeOptions, generate_fat_tree, generate_supernode)
    from core.project import save_project  # noqa: PLC0415

    catalog = default_catalog()
    if args.template == "fat-tree":
        options = FatTreeOptions(
            gpus=args.gpus, server=args.server, switch=args.switch, tiers=args.tiers,
            oversubscription=args.oversubscription, island_gpus=args.island_gpus,
            island_oversubscription=args.island_oversubscription, storage=args.storage,
            storage_nodes=args.storage_nodes, ufm_appliances=args.ufm, name=args.name)
        design = generate_fat_tree(options, catalog)
    elif args.template == "supernode":
        design = generate_supernode(
            SupernodeOptions(args.system, args.count, args.switch, args.name), catalog)
    else:
        raise DesignError("generate needs a template: fat-tree or supernode")
    if args.workload:
        design.workload = _load_workload_arg(args.workload)
    save_project(design, args.output)
    return 0


def _cmd_export(args) -> int:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from designer.export import export_diagram  # noqa: PLC0415 - Qt only for this command
    from core.project import load_project  # noqa: PLC0415

    design = load_project(args.project)
    export_diagram(design, Path(args.output), width_px=args.width)
    return 0


def _cmd_catalog(args) -> int:
    from core.catalog import KINDS, default_catalog  # noqa: PLC0415

    catalog = default_catalog()
    if args.kind and args.kind not in KINDS:
        raise DesignError(f"unknown kind {args.kind!r} (kinds: {', '.join(KINDS)})")
    specs = [s for s in catalog if not args.kind or s.kind == args.kind]
    if args.format == "json":
        text = json.dumps([s.to_json() for s in specs], indent=2)
    else:
        rows = [("ID", "KIND", "VENDOR", "NAME")] + [(s.id, s.kind, s.vendor, s.name) for s in specs]
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        text = "\n".join(
            f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  {r[3]}" for r in rows
        )
    _write_output(text, None)
    return 0


def _warn_about_catalog() -> None:
    """Every subcommand uses the catalog: load it first so that a user catalog left out (bad
    JSON, unreadable folder) is reported once, as a warning, before any output."""
    from core.catalog import default_catalog  # noqa: PLC0415

    for warning in default_catalog().warnings:
        sys.stderr.write(f"cluster-designer: warning: {warning}\n")


def _run_gui(argv: list[str]) -> int:
    gui = _Parser(prog="cluster-designer", description="Open the Cluster Designer window.")
    gui.add_argument("project", nargs="?", help="project file (default: the bundled example)")
    gui.add_argument("--screenshot", metavar="OUT.png",
                     help="render the main window after the first evaluation and exit")
    args = gui.parse_args(argv)
    if args.project and not Path(args.project).exists():
        raise DesignError(f"{args.project}: no such file")
    from designer.app import run  # noqa: PLC0415 - Qt is only needed for the GUI

    return run(args.project or str(DEFAULT_EXAMPLE), screenshot=args.screenshot)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or argv[0] not in SUBCOMMANDS + ("-h", "--help"):
            return _run_gui(argv)
        args = _build_parser().parse_args(argv)
        _warn_about_catalog()
        handler = {"evaluate": _cmd_evaluate, "generate": _cmd_generate,
                   "export": _cmd_export, "catalog": _cmd_catalog}[args.command]
        return handler(args)
    except DesignError as exc:
        sys.stderr.write(f"cluster-designer: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("cluster-designer: interrupted\n")
        return 130
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
