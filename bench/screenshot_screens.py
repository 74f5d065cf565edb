"""Layout review, not a timing: the main window as it opens on common screens, to PNG.

    python bench/screenshot_screens.py [PROJECT] [-o OUT_DIR] [--screen 1366x768 ...] [--taskbar 40]
        [--font-pt 11]

For each screen the window is fitted to the screen's usable area (the screen less a task bar
at the bottom), laid out by default, and saved three times: nothing selected, the first link
selected, the first component selected. Each line printed says how many Inspector fields show
whole (and which are cut), any dock tab whose title is elided, and how wide the canvas is: look
at the PNGs for anything cramped or clipped. --font-pt sets the application font's size: the
offscreen platform's 9 pt is smaller than a desktop's usual 10-11 pt.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
import gui_sandbox  # noqa: E402,F401 - before Qt: settings in a temp folder

from PySide6.QtCore import QPoint, QRect  # noqa: E402
from PySide6.QtWidgets import QTabBar  # noqa: E402

from core.catalog import default_catalog  # noqa: E402
from core.model import Block, Node  # noqa: E402
from core.project import load_project  # noqa: E402
from designer.common.qtapp import ensure_app  # noqa: E402

DEFAULT_PROJECT = ROOT / "resources" / "examples" / "dgx-h100-superpod-4su.json"


def _screen(text: str) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WIDTHxHEIGHT") from None
    if width < 640 or height < 480:
        raise argparse.ArgumentTypeError(f"{text}: a screen of at least 640x480, please")
    return width, height


def _cut_fields(window) -> list[str]:
    viewport = window.inspector.viewport()
    return [name for name, field in window.inspector.fields.items()
            if not viewport.rect().contains(QRect(field.mapTo(viewport, QPoint(0, 0)), field.size()))]


def _elided_tabs(window) -> list[str]:
    """Titles of dock tabs drawn narrower than they need (Qt elides them: "Overvi…")."""
    return [bar.tabText(i) for bar in window.findChildren(QTabBar) if bar.isVisible()
            for i in range(bar.count()) if bar.tabRect(i).width() < bar.tabSizeHint(i).width()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project", nargs="?", default=str(DEFAULT_PROJECT))
    parser.add_argument("-o", "--out", default=".", help="folder for the PNGs (default: here)")
    parser.add_argument("--screen", type=_screen, action="append",
                        help="screen size WIDTHxHEIGHT (default: 1366x768 and 1600x1000)")
    parser.add_argument("--taskbar", type=int, default=40, help="task bar height in px (default 40)")
    parser.add_argument("--font-pt", type=float, help="application font size in points")
    args = parser.parse_args()
    app = ensure_app(headless=True)
    if args.font_pt:
        font = app.font()
        font.setPointSizeF(args.font_pt)
        app.setFont(font)
    from designer.window.main_window import MainWindow  # noqa: PLC0415 - after the QApplication

    catalog = default_catalog()
    design = load_project(args.project, catalog)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    root = design.root
    component = next((key for key, child in root.children.items() if isinstance(child, Node)),
                     next((key for key, child in root.children.items() if isinstance(child, Block)), None))
    link = root.links[0].id if root.links else None
    for width, height in args.screen or [(1366, 768), (1600, 1000)]:
        window = MainWindow(catalog, interactive=False)
        window.fit_to_screen(QRect(0, 0, width, height - args.taskbar))
        window.load_design(design, Path(args.project))
        window.show()
        app.processEvents()
        window.evaluate_now()
        for name, ids, link_ids in (("", [], []), ("link", [], [link]), ("component", [component], [])):
            if name and not (ids or link_ids)[0]:
                continue
            window.scene.select(ids, link_ids)
            app.processEvents()
            path = out / f"{Path(args.project).stem}-{width}x{height}{'-' + name if name else ''}.png"
            window.grab().save(str(path))
            cut = _cut_fields(window)
            elided = _elided_tabs(window)
            whole = len(window.inspector.fields) - len(cut)
            print(f"{path}: window {window.width()}x{window.height()}, canvas {window.view.width()} px wide, "
                  f"{whole} inspector fields whole{' (cut: ' + ', '.join(cut) + ')' if cut else ''}, "
                  f"{'tabs elided: ' + ', '.join(elided) if elided else 'no tab elided'}")
        window.document.undo_stack.setClean()
        window.evaluator.shutdown()
        window.workload_panel.shutdown()
        window.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
