"""Issue 24 part 4: designer/ grouped by feature. Moves the flat modules of designer/ into their
packages (git mv, so history follows) and rewrites every reference to an old module path in
designer/, tests/, bench/, docs/ and pyproject.toml to the new one.

Idempotent: run it again after merging a branch written against the flat layout
(``python .ci/relayout_designer.py`` from the repository root) and it moves whatever came back
and rewrites the new lines; a tree already in the new layout is left as it is.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# package -> its one-line docstring
PACKAGES = {
    "common": "The shared base of the application: threads, the QApplication, formatting, style, icons, small widgets.",
    "project": "The open project: its design and undo stack, the edits behind gestures, continuous evaluation.",
    "editor": "The docks that edit the design beside the canvas: component palette, outline, inspector.",
    "assumptions": "The assumptions editor: every assumption of the project, by analysis.",
    "workload": "The Workload tab: a training or an inference workload, its presets, software stack and searches.",
    "services": "The Services tab: the inference services a design carries and the partitions they run on.",
    "sweep": "Sweep results in the window (File > Open Sweep Results...).",
    "site": "The floor plan: the Floor view and the site exports of the command line.",
    "interop": "Designs in and out of other tools from the window (File > Import / Export).",
    "window": "The main window: the app's entry, menus, files, docks, recovery, settings, help, baseline.",
    "cli": "The ``cluster-designer`` command line (DESIGN.md \"Command line\" contract).",
}

# old module (under designer.) -> new module (under designer.)
MOVES = {
    # common: nothing of a feature
    "worker": "common.worker", "busy": "common.busy", "qtapp": "common.qtapp",
    "qt_platform": "common.qt_platform", "format": "common.format", "style": "common.style",
    "icons": "common.icons", "qaction": "common.qaction", "mime": "common.mime",
    "window_fit": "common.window_fit", "delta_text": "common.delta_text",
    "search_table": "common.search_table",
    # project
    "document": "project.document", "commands": "project.commands", "edits": "project.edits",
    "connect": "project.connect", "evaluator": "project.evaluator",
    # canvas
    "breadcrumb": "canvas.breadcrumb",
    # editor
    "palette": "editor.palette", "outline": "editor.outline", "inspector": "editor.inspector",
    "member_list": "editor.member_list", "dpu_engine_text": "editor.dpu_engine_text",
    # assumptions
    "assumptions_panel": "assumptions.assumptions_panel",
    "assumption_fields": "assumptions.assumption_fields",
    # panels: the deployment search's view, which the Performance panel shows too
    "inference_search_view": "panels.deployment_search",
    # workload
    "workload_panel": "workload.workload_panel", "inference_form": "workload.inference_form",
    "inference_editors": "workload.inference_editors", "model_fields": "workload.model_fields",
    "moe_fields": "workload.moe_fields", "stack_selector": "workload.stack_selector",
    "preset_list": "workload.preset_list", "search": "workload.search_runner",
    # services
    "services_panel": "services.services_panel", "partition_editor": "services.partition_editor",
    # sweep, site, interop
    "sweep_view": "sweep.sweep_view",
    "floor_view": "site.floor_view", "site_export": "site.site_export",
    "interop_actions": "interop.interop_actions",
    # window
    "app": "window.app", "main_window": "window.main_window", "default_layout": "window.default_layout",
    "recovery": "window.recovery", "user_settings": "window.user_settings", "guide": "window.guide",
    "baseline": "window.baseline", "validity_banner": "window.validity_banner",
    "wizard": "window.wizard", "export": "window.export",
    # the command line (designer.cli stays the command: its package exposes main)
    "cli_interop": "cli.interop", "cli_services": "cli.services", "cli_stacks": "cli.stacks",
    "cli_sweep": "cli.sweep",
}
# the file moves (old path -> new path) when it differs from the module move
FILE_MOVES = {"cli": "cli/command"}

# names that left the module they were first written in: (new module, name) -> their module now
# ("module:new_name" when the name changed too: public once another module uses it)
NAME_MOVES = {
    ("panels.deployment_search", "run_inference_search"): "workload.inference_search",
    ("panels.deployment_search", "InferenceSearchOutcome"): "workload.inference_search",
    **{("window.main_window", name): "window.docks"
       for name in ("LAYOUT_VERSION", "WARNINGS_HEIGHT_PX", "DOCK_TAB_STYLE")},
    **{("window.main_window", name): "window.files" for name in ("MAX_RECENT", "PROJECT_FILTER", "STATUS_MS")},
    ("window.main_window", "redo_shortcuts"): "window.menus",
    **{("workload.workload_panel", name): "workload.searches" for name in ("SEARCH_COLUMNS", "WorkloadSearches")},
    **{("workload.workload_panel", name): "workload.preset_list" for name in ("NONE", "CUSTOM")},
    # canvas/items.py in four: the cards, their links, a block's preview, what they paint alike
    **{("canvas.items", name): "canvas.links"
       for name in ("BundleLine", "LinkItem", "ExternalLinkItem", "bundle_path", "label_rect_at", "paint_link")},
    **{("canvas.items", name): "canvas.preview"
       for name in ("PreviewChild", "PreviewLink", "PreviewTile", "PreviewWire", "Preview", "PREVIEW_MAX_CHILDREN",
                    "TILE_W", "TILE_H", "TILE_GAP_X", "TILE_GAP_Y", "PREVIEW_MAX_SCALE", "PREVIEW_MARGIN",
                    "PREVIEW_MAX_W", "PREVIEW_MAX_H", "PREVIEW_MIN_H", "PARALLEL_WIRE_GAP")},
    ("canvas.items", "_layout_preview"): "canvas.preview:layout_preview",
    ("canvas.items", "_NO_PREVIEW"): "canvas.preview:NO_PREVIEW",
    ("canvas.items", "_paint_tile"): "canvas.preview:paint_tile",
    ("canvas.items", "_paint_wire"): "canvas.preview:paint_wire",
    ("canvas.items", "TAG_H"): "canvas.drawing",
    ("canvas.items", "_TITLE"): "canvas.drawing:TITLE_FONT", ("canvas.items", "_SUB"): "canvas.drawing:SUB_FONT",
    ("canvas.items", "_BADGE"): "canvas.drawing:BADGE_FONT", ("canvas.items", "_TAG"): "canvas.drawing:TAG_FONT",
    ("canvas.items", "_TILE_BADGE"): "canvas.drawing:TILE_BADGE_FONT",
    ("canvas.items", "_WIRE_LABEL"): "canvas.drawing:WIRE_LABEL_FONT",
    ("canvas.items", "_elide"): "canvas.drawing:elide", ("canvas.items", "_draw_badge"): "canvas.drawing:draw_badge",
    ("canvas.items", "_draw_pill"): "canvas.drawing:draw_pill", ("canvas.items", "_rect_exit"): "canvas.drawing:rect_exit",
    ("canvas.items", "_Card"): "canvas.items:Card",
}

TEXT_GLOBS = ("designer/**/*.py", "tests/**/*.py", "bench/**/*.py", "docs/**/*.md",
              "pyproject.toml", ".ci/*.py")
HERE = Path(__file__).resolve()


def git(*args: str) -> None:
    subprocess.run(["git", *args], cwd=ROOT, check=True)


def move_files() -> None:
    for package, doc in PACKAGES.items():
        init = ROOT / "designer" / package / "__init__.py"
        if not init.exists():
            init.parent.mkdir(exist_ok=True)
            init.write_text(f'"""{doc}"""\n')
            git("add", str(init.relative_to(ROOT)))
    moves = {old: new.replace(".", "/") for old, new in MOVES.items()} | FILE_MOVES
    for old, new in moves.items():
        source, target = ROOT / "designer" / f"{old}.py", ROOT / "designer" / f"{new}.py"
        if source.exists() and not target.exists():
            git("mv", str(source.relative_to(ROOT)), str(target.relative_to(ROOT)))


OLD = "|".join(sorted(MOVES, key=len, reverse=True))
DOTTED = re.compile(rf"(?<![-\w])designer\.({OLD})\b(?![\w/])")
SLASHED = re.compile(rf"(?<![-\w])designer/({OLD}|cli)\.py\b")
FROM_PACKAGE = re.compile(r"^(?P<indent>[ \t]*)from designer import (?P<names>[\w, ]+?)(?P<tail>[ \t]*(#.*)?)$",
                          re.M)
# ``from designer.X import a, b`` on one line or parenthesised over several
FROM_MODULE = re.compile(r"^(?P<indent>[ \t]*)from designer\.(?P<module>[\w.]+) import "
                         r"(?:\((?P<wrapped>[^)]*)\)|(?P<names>[\w, ]+?))(?P<tail>[ \t]*(#.*)?)$", re.M)
LINE_LIMIT = 110


def _from_package(match: re.Match) -> str:
    """``from designer import edits, mime`` -> one line per package the names now live in."""
    names = [n.strip() for n in match["names"].split(",")]
    if not any(n.split(" as ")[0] in MOVES for n in names):
        return match[0]
    by_package: dict[str, list[str]] = {}
    for name in names:
        bare = name.split(" as ")[0]
        where = MOVES.get(bare, bare).rpartition(".")[0]
        target = f"designer.{where}" if where else "designer"
        new_bare = MOVES.get(bare, bare).rpartition(".")[2]
        alias = name.split(" as ")[1] if " as " in name else (bare if new_bare != bare else None)
        by_package.setdefault(target, []).append(new_bare + (f" as {alias}" if alias else ""))
    lines = [f"{match['indent']}from {p} import {', '.join(n)}" for p, n in sorted(by_package.items())]
    lines[0] += match["tail"]
    return "\n".join(lines)


def _import_line(indent: str, module: str, names: list[str]) -> str:
    """One import statement, wrapped in parentheses under the line limit as the code does."""
    line = f"{indent}from {module} import {', '.join(names)}"
    if len(line) <= LINE_LIMIT:
        return line
    head = f"{indent}from {module} import ("
    lines, current = [], head
    for n, name in enumerate(names):
        piece = name + (", " if n < len(names) - 1 else ")")
        if len(current) + len(piece.rstrip()) > LINE_LIMIT and current.strip() != head.strip():
            lines.append(current.rstrip())
            current = " " * len(head)
        current += piece
    return "\n".join([*lines, current])


def _sorted_names(names: list[str]) -> list[str]:
    """isort's order: CONSTANTS, Classes, functions (each case-sensitively)."""
    def key(name: str) -> tuple[int, str]:
        bare = name.split(" as ")[0]
        return (0 if bare.isupper() else 1 if bare[:1].isupper() else 2, bare)
    return sorted(names, key=key)


def _from_module(match: re.Match, renamed: dict[str, str]) -> str:
    """``from designer.X import a, b`` where some names moved on (or were renamed) after the
    module did; ``renamed`` collects the renames, for the uses in the file."""
    module = match["module"]
    names = [n.strip() for n in (match["wrapped"] or match["names"]).replace("\n", " ").split(",") if n.strip()]
    if not any((module, n.split(" as ")[0]) in NAME_MOVES for n in names):
        return match[0]
    by_module: dict[str, list[str]] = {}
    for name in names:
        bare, _, alias = name.partition(" as ")
        where, _, new = NAME_MOVES.get((module, bare), module).partition(":")
        if new and not alias:
            renamed[bare] = new
        by_module.setdefault(where, []).append((new or bare) + (f" as {alias}" if alias else ""))
    lines = [_import_line(match["indent"], f"designer.{m}", _sorted_names(n)) for m, n in sorted(by_module.items())]
    lines[0] += match["tail"]
    return "\n".join(lines)


# a top-level designer import: one line, or parenthesised over several
TOP_IMPORT = re.compile(r"^(from designer[\w.]* import (\([^)]*\)|[^(\n]*)|import designer[\w.]*)$", re.M)


def _sort_imports(text: str) -> str:
    """Each run of top-level ``designer`` imports (nothing else between them) in module order."""
    out, pos, run, run_end = [], 0, [], None
    for match in TOP_IMPORT.finditer(text):
        if run and text[run_end:match.start()] == "\n":
            run.append(match[0])
        else:
            if run:
                out.append("\n".join(sorted(run, key=lambda s: s.split()[1])))
                pos = run_end
            out.append(text[pos:match.start()])
            run = [match[0]]
        run_end = match.end()
    if run:
        out.append("\n".join(sorted(run, key=lambda s: s.split()[1])))
        pos = run_end
    out.append(text[pos:])
    return "".join(out)


def rewrite(text: str, python: bool) -> str:
    text = FROM_PACKAGE.sub(_from_package, text)
    text = DOTTED.sub(lambda m: f"designer.{MOVES[m[1]]}", text)
    text = SLASHED.sub(lambda m: f"designer/{(MOVES | FILE_MOVES)[m[1]].replace('.', '/')}.py", text)
    if not python:
        return text
    renamed: dict[str, str] = {}
    text = FROM_MODULE.sub(lambda m: _from_module(m, renamed), text)
    for old, new in renamed.items():
        text = re.sub(rf"(?<![\w.]){re.escape(old)}\b", new, text)
    return _sort_imports(text)


def rewrite_files() -> list[Path]:
    changed = []
    for glob in TEXT_GLOBS:
        for path in sorted(ROOT.glob(glob)):
            if path.resolve() == HERE or "golden" in path.parts:
                continue
            text = path.read_text(encoding="utf-8")
            new = rewrite(text, path.suffix == ".py")
            if new != text:
                path.write_text(new, encoding="utf-8")
                changed.append(path)
    return changed


if __name__ == "__main__":
    move_files()
    for path in rewrite_files():
        print("rewrote", path.relative_to(ROOT))
