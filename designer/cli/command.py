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
import textwrap
from pathlib import Path

from core.errors import DesignError
from core.interop.exports import DATA_FORMATS
from designer.cli.interop import (add_import_command, add_server_export_options, export_data,
                                  run_import_command, run_server_export)
from designer.cli.services import add_service_options, apply_service_options
from designer.cli.stacks import (add_stack_option, add_stacks_command, apply_stack_option,
                                 stacks_text)
from designer.cli.sweep import add_sweep_command, run_sweep_command
from designer.site.site_export import SITE_EXPORTS, export_site, site_export_for

SUBCOMMANDS = ("evaluate", "generate", "export", "catalog", "compare", "stacks", "sweep", "import")
HELP_WIDTH = 78


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


def _with_example(description: str, example: str) -> dict:
    """Parser keywords for a description (wrapped here: the raw formatter keeps the example's
    line breaks, and would keep the description's long lines too) ending with an example."""
    return {"description": textwrap.fill(description, HELP_WIDTH, break_on_hyphens=False),
            "epilog": "example:\n" + textwrap.indent(example, "  "),
            "formatter_class": argparse.RawDescriptionHelpFormatter}


def _sub(sub, name: str, help_text: str, description: str, example: str) -> argparse.ArgumentParser:
    """A subcommand whose --help ends with an example invocation."""
    return sub.add_parser(name, help=help_text, **_with_example(description, example))


WORKLOAD_HELP = ("workload preset name ({presets}) or workload JSON file; a preset is fitted to the "
                 "design (DP and global batch fill its GPUs, TP/PP/CP/EP kept), a file is used as written")
KEEP_LAYOUT_HELP = ("use a preset's own TP/PP/DP/CP/EP and global batch instead of fitting them to the "
                    "design's GPUs (a job smaller than the design runs on part of it)")


def _add_workload_options(parser: argparse.ArgumentParser, what: str) -> None:
    from core.inference_workload import list_inference_presets  # noqa: PLC0415
    from core.workload import list_presets  # noqa: PLC0415

    names = [*list_presets(), *list_inference_presets()]
    parser.add_argument("--workload", metavar="NAME|FILE",
                        help=f"{what}: " + WORKLOAD_HELP.format(presets=", ".join(names)))
    parser.add_argument("--keep-preset-layout", action="store_true", help=KEEP_LAYOUT_HELP)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cluster-designer", **_with_example(
        "Design AI GPU clusters. cluster-designer [PROJECT] [--screenshot OUT.png] opens the window "
        "(cluster-designer PROJECT --help for its options); cluster-designer COMMAND --help shows a "
        "command's options.",
        "cluster-designer generate fat-tree --gpus 1024 --server DGX-H100 --switch QM9700 -o pod.json\n"
        "cluster-designer evaluate pod.json --format md"))
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND",
                                help="what to do (each has its own --help)")

    ev = _sub(sub, "evaluate", "evaluate a project and print the results",
              "Evaluate a project: counts, bandwidth, latency, power, reliability and the workload's "
              "training performance.",
              "cluster-designer evaluate cluster.json --workload llama3-70b --format md \\\n"
              "    -o report.md")
    ev.add_argument("project", metavar="PROJECT", help="project file (.json) to evaluate")
    _add_workload_options(ev, "replaces the project's own workload")
    add_service_options(ev)
    add_stack_option(ev, "replaces the project's own performance assumptions")
    ev.add_argument("--fail", action="append", default=[], metavar="PATH[:N]",
                    help="evaluate with N units of a component or block out of service (failed), e.g. "
                         "spine:1, pod/spine:4 (4 spines over all pods, the first pod's first), pod:1 (a "
                         "whole pod), or N cables of a link as BLOCK#LINK:N (#LINK:N at the top level); "
                         "without :N every unit. Repeatable; the failure section says what it costs")
    ev.add_argument("--drain", action="append", default=[], metavar="PATH[:N]",
                    help="like --fail, for units taken out on purpose (maintenance): the same capacity "
                         "loss, reported as drained")
    ev.add_argument("--format", choices=("json", "md", "csv", "html", "bom"), default="json",
                    help="json: evaluation JSON (cluster-designer.evaluation/1); md, html: readable report; "
                         "csv: one metric a row; bom: bill of materials as CSV (default: json)")
    ev.add_argument("-o", "--output", metavar="FILE",
                    help="write to this file (atomically) instead of stdout")

    gen = _sub(sub, "generate", "generate a design from a template",
               "Generate a design from a template and save it as a project file. Templates: fat-tree, "
               "supernode (cluster-designer generate TEMPLATE --help for their options).",
               "cluster-designer generate fat-tree --gpus 16384 --server DGX-H100 --switch QM9700 \\\n"
               "    --workload llama3-405b -o cluster.json")
    gen_sub = gen.add_subparsers(dest="template", parser_class=_Parser, metavar="TEMPLATE",
                                 help="the kind of design to build")
    ft = _sub(gen_sub, "fat-tree", "servers on a 2- or 3-tier folded Clos",
              "Servers on a 2- or 3-tier folded Clos (fat-tree). Rail-optimised when the server has one NIC "
              "per GPU; port speed follows the server's NICs and the switch's breakout modes.",
              "cluster-designer generate fat-tree --gpus 8192 --server DGX-H100 --switch SN5600 \\\n"
              "    --island-gpus 2048 --island-oversubscription 4:1 -o islands.json")
    ft.add_argument("--gpus", type=_positive_int, required=True, metavar="N",
                    help="GPUs in the design, a multiple of the server's GPUs (e.g. 1024 or 16,384)")
    ft.add_argument("--server", required=True, metavar="SERVER_ID",
                    help="catalog id of the server or super-node (e.g. DGX-H100; see: catalog --kind server)")
    ft.add_argument("--switch", required=True, metavar="SWITCH_ID",
                    help="catalog id of the scale-out switch (e.g. QM9700; see: catalog --kind switch)")
    ft.add_argument("--tiers", choices=("auto", "2", "3"), default="auto",
                    help="switch tiers; auto: the fewest that reach every GPU, 3 with islands (default: auto)")
    ft.add_argument("--oversubscription", type=_ratio, default=1.0, metavar="RATIO",
                    help="leaf oversubscription as down:up ports, e.g. 2:1 or 2 (default: 1:1, full bisection)")
    ft.add_argument("--island-gpus", type=_positive_int, metavar="M",
                    help="GPUs per computing island: full-bisection pods of M GPUs joined by a third tier")
    ft.add_argument("--island-oversubscription", type=_ratio, default=1.0, metavar="RATIO",
                    help="oversubscription of the tier joining the islands, down:up, e.g. 4:1 (default: 1:1)")
    ft.add_argument("--storage", metavar="STORAGE_ID",
                    help="catalog id of the storage appliance (e.g. AI400X2), on its own fabric "
                         "unless --storage-fabric converged")
    ft.add_argument("--storage-nodes", type=_positive_int, default=0, metavar="K",
                    help="storage appliances (needs --storage; default: 0)")
    ft.add_argument("--storage-switch", metavar="SWITCH_ID",
                    help="catalog id of the storage fabric's own switch, which gets 2 or 3 tiers "
                         "as its ports need (e.g. SN5600; default: the compute --switch)")
    ft.add_argument("--storage-fabric", choices=("separate", "converged"), default="separate",
                    help="separate: storage on its own fabric, the servers' storage NICs or DPUs "
                         "to it; converged: storage leaves on the compute fabric's top tier, "
                         "reached over the compute NICs (default: separate)")
    ft.add_argument("--ufm", type=_positive_int, default=0, metavar="N",
                    help="UFM fabric-manager appliances on free leaf ports (SuperPOD RA: 4; default: 0)")
    ft.add_argument("--planes", type=_positive_int, default=1, metavar="P",
                    help="independent Clos planes sharing the servers, never joined at the top; the "
                         "server's NIC ports are divided among them (e.g. 8 NICs on 8 planes, or "
                         "ConnectX-8 as 4 x 200G on 4 planes; default: 1)")
    ft.add_argument("--rail-only", action="store_true",
                    help="no spine: one switch per rail (NIC port index); traffic between rails "
                         "crosses the scale-up domain (Wang et al. 2024)")
    _add_workload_options(ft, "workload to embed")
    add_service_options(ft)
    add_stack_option(ft, "stored in the project")
    ft.add_argument("--name", help="design name (default: derived from GPUs, server and switch)")
    ft.add_argument("-o", "--output", required=True, metavar="PROJECT",
                    help="project file to write (.json, written atomically)")
    sn = _sub(gen_sub, "supernode", "super-nodes joined by a scale-out fabric",
              "Super-nodes (e.g. GB200 NVL72 racks) joined by a scale-out fabric.",
              "cluster-designer generate supernode --system GB200-NVL72 --count 8 -o nvl72.json")
    sn.add_argument("--system", required=True, metavar="SYSTEM_ID",
                    help="catalog id of the super-node or server (e.g. GB200-NVL72, CloudMatrix384)")
    sn.add_argument("--count", type=_positive_int, required=True, metavar="N",
                    help="number of super-nodes (systems), e.g. 8")
    sn.add_argument("--switch", metavar="SWITCH_ID",
                    help="catalog id of the scale-out switch (default: one at its NICs' speed, "
                    "QM9700 for 400G, Q3400 for 800G, TH6 for 1.6T; one system alone gets none)")
    sn.add_argument("--planes", type=_positive_int, default=1, metavar="P",
                    help="independent scale-out planes between the systems, each system's NIC "
                         "ports divided among them (default: 1)")
    sn.add_argument("--rail-only", action="store_true",
                    help="no spine: one switch per rail (NIC index of every system); traffic "
                         "between rails crosses the scale-up domain (Wang et al. 2024)")
    _add_workload_options(sn, "workload to embed")
    add_service_options(sn)
    add_stack_option(sn, "stored in the project")
    sn.add_argument("--name", help="design name (default: COUNT x SYSTEM_ID)")
    sn.add_argument("-o", "--output", required=True, metavar="PROJECT",
                    help="project file to write (.json, written atomically)")

    ex = _sub(sub, "export", "export the diagram or the design's data",
              "Export the top level of a project's diagram as SVG, PNG or PDF (no display needed), or "
              "the design as GraphML (devices and cable bundles, for graph tools), diagrams.net "
              "(.drawio, every block a page) or an ibnetdiscover topology file (.topo: the planned "
              "InfiniBand cabling, to diff against the built fabric), ASTRA-sim's network and system inputs "
              "(a folder named *.astra), or the floor plan: the cable "
              "schedule (.csv), rack elevations (racks.csv, racks.svg) and the floor (floor.svg).",
              "cluster-designer export cluster.json -o diagram.svg\n"
              "cluster-designer export cluster.json -o cluster.graphml --level block\n"
              "cluster-designer export cluster.json -o cables.csv")
    ex.add_argument("project", metavar="PROJECT", help="project file (.json) to draw")
    add_server_export_options(ex)
    ex.add_argument("-o", "--output", metavar="FILE",
                    help="file to write; its extension picks the format: .svg, .png, .pdf, .graphml, "
                         ".drawio, .topo, .astra (a folder: ASTRA-sim's network.yml and system.json), "
                         "or .csv (cable schedule; see --site)")
    ex.add_argument("--level", choices=("device", "block"), default="device",
                    help="GraphML: one node per device (default) or per group of the design, as "
                         "stored (for huge designs)")
    ex.add_argument("--width", type=_positive_int, default=1600, metavar="PIXELS",
                    help="PNG width in pixels (default: 1600)")
    ex.add_argument("--site", choices=SITE_EXPORTS, default=None,
                    help="export the floor plan instead of the diagram: 'cables' (cable schedule, "
                         ".csv), 'racks' (rack elevations, .csv or .svg), 'floor' (.svg). Default: "
                         "from the file name: *.csv is the cable schedule (racks*.csv the "
                         "elevations), floor*.svg the floor plan, racks*.svg the elevations")

    cmp = _sub(sub, "compare", "compare designs side by side",
               "Evaluate two or more projects and compare every headline metric (counts, bandwidth, "
               "latency, power, reliability, performance, cost) against the first: absolute and relative "
               "deltas, better or worse, and one sentence per design saying where it wins and loses. "
               "A metric that has no value in a design (a job that cannot run) is n/a, never a number.",
               "cluster-designer compare fat-tree.json islands.json --workload llama3-70b \\\n"
               "    --format md -o comparison.md")
    cmp.add_argument("projects", nargs="+", metavar="PROJECT",
                     help="project files (.json), two or more; the first is the baseline the others are "
                          "compared with. A saved evaluation (evaluate --format json -o FILE) is compared "
                          "as it is")
    _add_workload_options(cmp, "replaces every project's own workload")
    add_stack_option(cmp, "every design under this preset (without it, each project's own stack, so "
                          "projects saved with different stacks compare under different stacks)")
    cmp.add_argument("--format", choices=("json", "md", "html", "csv"), default="md",
                     help="md, html: side-by-side table with deltas and the sentences; json: comparison "
                          "JSON (cluster-designer.comparison/1) holding each design's evaluation JSON; csv: "
                          "one metric a row, raw numbers in the units of the unit column (default: md)")
    cmp.add_argument("-o", "--output", metavar="FILE",
                     help="write to this file (atomically) instead of stdout")

    cat = _sub(sub, "catalog", "list catalog components",
               "List the component catalog (built-in entries and the user catalog file).",
               "cluster-designer catalog --kind switch --since 2025")
    cat.add_argument("--kind", metavar="KIND", help="only this kind: " + ", ".join(_catalog_kinds()))
    cat.add_argument("--since", type=_positive_int, metavar="YEAR",
                     help="only entries first shipped (or announced) in YEAR or later, e.g. 2025")
    cat.add_argument("--status", metavar="STATUS",
                     help="only shipping or only announced (not yet shipping) hardware")
    cat.add_argument("--vendor", metavar="TEXT",
                     help="only entries whose vendor contains TEXT (any case), e.g. nvidia")
    cat.add_argument("--format", choices=("json", "table"), default="table",
                     help="table: id, kind, vendor, year, status, name; json: every spec with its "
                          "source (default: table)")
    add_stacks_command(sub, _sub)
    add_sweep_command(sub, _sub)
    add_import_command(sub, _sub)
    return parser


def _catalog_kinds() -> tuple[str, ...]:
    from core.catalog import KINDS  # noqa: PLC0415

    return KINDS


def _write_output(text: str, output: str | None) -> None:
    if output:
        from core.project import atomic_write_text  # noqa: PLC0415

        atomic_write_text(output, text)
    else:
        sys.stdout.write(text)
        if not text.endswith("\n"):
            sys.stdout.write("\n")


def _load_workload_arg(value: str, design=None, keep_layout: bool = False, label: str = ""):
    """The workload ``--workload`` names: a preset, fitted to ``design``'s GPUs unless
    ``keep_layout`` (the note goes to stderr, after ``label``), or a workload file, used as
    written."""
    from core.inference_workload import (list_inference_presets, load_any_workload,  # noqa: PLC0415
                                         load_inference_preset)
    from core.workload import list_presets, load_preset  # noqa: PLC0415

    if value in list_inference_presets():  # served with its own deployment: nothing to fit
        return load_inference_preset(value)
    if value in list_presets():
        preset = load_preset(value)
        if design is None or keep_layout:
            return preset
        from core.catalog import default_catalog  # noqa: PLC0415
        from core.partitions import main_gpus  # noqa: PLC0415
        from core.preset_fit import fit_to_design  # noqa: PLC0415

        # the GPUs of the main workload's partition (the design's own without services)
        workload, note = fit_to_design(preset, main_gpus(design, default_catalog()), value)
        sys.stderr.write(f"cluster-designer: {label}{note}\n")
        return workload
    if not Path(value).exists() and not value.endswith(".json"):
        raise DesignError(
            f"{value!r} is neither a workload file nor a preset "
            f"(presets: {', '.join([*list_presets(), *list_inference_presets()])})"
        )
    return load_any_workload(Path(value))


def _cmd_evaluate(args) -> int:
    from core.evaluate import evaluate, evaluation_to_json  # noqa: PLC0415
    from core.project import load_project  # noqa: PLC0415
    from core.report import render_report  # noqa: PLC0415

    from core.what_if import with_out_of_service  # noqa: PLC0415

    design = apply_stack_option(load_project(args.project), args)
    design = with_out_of_service(design, args.fail, args.drain)
    design = apply_service_options(design, args, _load_workload_arg)
    workload = _load_workload_arg(args.workload, design, args.keep_preset_layout) if args.workload else None
    evaluation = evaluate(design, workload=workload)
    if args.format == "json":
        text = json.dumps(evaluation_to_json(evaluation), indent=2, allow_nan=False)
    else:
        text = render_report(evaluation, args.format)
    _write_output(text, args.output)
    return 0


def _design_names(paths: list[str]) -> list[str]:
    """Column names: file stems; the paths where stems repeat (a/x.json vs b/x.json); numbered
    stems where even the paths repeat (a design compared with itself)."""
    stems = [Path(p).stem for p in paths]
    if len(set(stems)) == len(stems):
        return stems
    if len(set(paths)) == len(paths):
        return list(paths)
    return [f"{stem} ({i + 1})" for i, stem in enumerate(stems)]


def _comparable_evaluation(path: str, args, shared_workload, is_preset: bool) -> dict:
    """The evaluation JSON of one ``compare`` input: a project evaluated now (with the
    ``--workload``), or an evaluation saved earlier, used as it is."""
    from core.compare import read_comparable  # noqa: PLC0415
    from core.evaluate import evaluate, evaluation_to_json  # noqa: PLC0415

    design = read_comparable(path)
    if isinstance(design, dict):  # a saved evaluation
        if args.workload or args.stack:
            raise DesignError(f"{path}: a saved evaluation cannot be re-run with --workload or --stack; "
                              "compare its project instead")
        return design
    design = apply_stack_option(design, args)
    try:
        workload = shared_workload
        if is_preset:
            workload = _load_workload_arg(args.workload, design, args.keep_preset_layout, f"{path}: ")
        return evaluation_to_json(evaluate(design, workload=workload))
    except DesignError as exc:
        if str(exc).startswith(f"{path}:"):
            raise
        raise DesignError(f"{path}: {exc}") from None


def _cmd_compare(args) -> int:
    from core.compare import compare_evaluations, comparison_to_json  # noqa: PLC0415
    from core.report.comparison import render_comparison  # noqa: PLC0415
    from core.workload import list_presets  # noqa: PLC0415

    if len(args.projects) < 2:
        raise DesignError("compare needs two or more project files (the first is the baseline)")
    # A workload file is read once (its errors name it); a preset is fitted to each design.
    is_preset = args.workload in list_presets()
    shared_workload = _load_workload_arg(args.workload) if args.workload and not is_preset else None
    # Sequential: a 100,000-GPU design evaluates in well under 0.1 s, less than starting a
    # worker process would cost.
    evaluations = [_comparable_evaluation(path, args, shared_workload, is_preset) for path in args.projects]
    comparison = compare_evaluations(evaluations, _design_names(args.projects))
    if args.format == "json":
        text = json.dumps(comparison_to_json(comparison, list(args.projects)), indent=2, allow_nan=False)
    else:
        text = render_comparison(comparison, args.format)
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
            storage_nodes=args.storage_nodes, storage_switch=args.storage_switch,
            storage_fabric=args.storage_fabric,
            ufm_appliances=args.ufm, name=args.name,
            planes=args.planes, rail_only=args.rail_only)
        design = generate_fat_tree(options, catalog)
    elif args.template == "supernode":
        design = generate_supernode(
            SupernodeOptions(args.system, args.count, args.switch, args.name, args.planes,
                             args.rail_only), catalog)
    else:
        raise DesignError("generate needs a template: fat-tree or supernode")
    design = apply_service_options(design, args, _load_workload_arg)
    if args.workload:
        design.workload = _load_workload_arg(args.workload, design, args.keep_preset_layout)
    save_project(apply_stack_option(design, args), args.output)
    return 0


def _cmd_export(args) -> int:
    if args.nautobot and args.netbox:
        raise DesignError("export: give --nautobot URL or --netbox URL, not both")
    server = "--nautobot" if args.nautobot else "--netbox" if args.netbox else None
    if server:
        if args.output:
            raise DesignError(f"export: give -o FILE or {server} URL, not both")
        return run_server_export(args)
    if not args.output:
        raise DesignError("export: -o FILE (or --nautobot URL, --netbox URL) is required")
    from core.project import load_project  # noqa: PLC0415

    output = Path(args.output)
    what = args.site or site_export_for(output)
    if output.suffix.lower() in DATA_FORMATS:
        export_data(load_project(args.project), output, args.level)
    elif what is not None:  # the floor plan's files need no Qt
        export_site(load_project(args.project), output, what)
    else:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
        from designer.window.export import export_diagram  # noqa: PLC0415 - Qt only for this command
        export_diagram(load_project(args.project), output, width_px=args.width)
    return 0


def _cmd_catalog(args) -> int:
    from core.catalog import default_catalog  # noqa: PLC0415
    from core.catalog_filter import CatalogQuery, select  # noqa: PLC0415

    query = CatalogQuery(args.kind, args.since, args.status, args.vendor)
    specs = select(default_catalog(), query)
    if args.format == "json":
        text = json.dumps([s.to_json() for s in specs], indent=2)
    else:
        rows = [("ID", "KIND", "VENDOR", "YEAR", "STATUS", "NAME")] + [
            (s.id, s.kind, s.vendor, str(s.year or "-"), s.status or "-", s.name)
            for s in specs]
        widths = [max(len(r[i]) for r in rows) for i in range(5)]
        text = "\n".join("  ".join(f"{cell:<{w}}" for cell, w in zip(r, widths)) + f"  {r[5]}"
                         for r in rows)
    _write_output(text, None)
    return 0


def _cmd_stacks(args) -> int:
    _write_output(stacks_text(args), None)
    return 0


def _gui_parser() -> argparse.ArgumentParser:
    gui = _Parser(prog="cluster-designer", **_with_example(
        "Open the Cluster Designer window. Commands without a window: evaluate, generate, export, "
        "catalog, compare, stacks, sweep (cluster-designer COMMAND --help).",
        "cluster-designer cluster.json --screenshot shot.png"))
    gui.add_argument("project", nargs="?", metavar="PROJECT",
                     help="project file to open (default: the bundled 4-SU DGX H100 SuperPOD example)")
    gui.add_argument("--screenshot", metavar="OUT.png",
                     help="render the main window (1600 x 1000 pixels) after the first evaluation, save it "
                          "as PNG and exit; needs no display")
    gui.add_argument("--panel", metavar="NAME",
                     help="with --screenshot: the metric panel in front, by its tab's title (cost, "
                          "power, comparison...; default: performance)")
    return gui


def _warn_about_catalog() -> None:
    """Every subcommand uses the catalog: load it first so that a user catalog left out (bad
    JSON, unreadable folder) is reported once, as a warning, before any output."""
    from core.catalog import default_catalog  # noqa: PLC0415

    for warning in default_catalog().warnings:
        sys.stderr.write(f"cluster-designer: warning: {warning}\n")


def _run_gui(argv: list[str]) -> int:
    args = _gui_parser().parse_args(argv)
    if args.project and not Path(args.project).exists():
        raise DesignError(f"{args.project}: no such file")
    # The window's core (the analyses, scipy) before Qt: PySide6 reads the source of every module
    # imported after it (its __feature__ import hook), ~0.1 s of each start for these modules.
    import core.compare  # noqa: F401,PLC0415
    import core.project  # noqa: F401,PLC0415
    from designer.window.app import run  # noqa: PLC0415 - Qt is only needed for the GUI

    # No project: the bundled example opens as an untitled copy (never saved over).
    if args.panel and not args.screenshot:
        raise DesignError("--panel goes with --screenshot (in the window, click the panel's tab)")
    return run(args.project, screenshot=args.screenshot, panel=args.panel)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or argv[0] not in SUBCOMMANDS + ("-h", "--help"):
            return _run_gui(argv)
        args = _build_parser().parse_args(argv)
        _warn_about_catalog()
        handler = {"evaluate": _cmd_evaluate, "generate": _cmd_generate,
                   "export": _cmd_export, "catalog": _cmd_catalog, "compare": _cmd_compare,
                   "stacks": _cmd_stacks, "sweep": run_sweep_command,
                   "import": run_import_command}[args.command]
        return handler(args)
    except DesignError as exc:
        sys.stderr.write(f"cluster-designer: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("cluster-designer: interrupted\n")
        return 130
    except BrokenPipeError:
        return 1

