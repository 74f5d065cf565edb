"""The software-stack parts of the ``cluster-designer`` command: the ``stacks`` subcommand and
the ``--stack NAME`` option of ``evaluate`` and ``generate`` (presets of core/stacks.py).

Kept apart from designer/cli/command.py so that the command's other subcommands grow without touching
these lines; cli.py only registers them.
"""

from __future__ import annotations

import argparse
import json
import textwrap

STACK_HELP = ("software-stack preset whose performance assumptions to use ({names}; list: "
              "cluster-designer stacks), e.g. --stack megatron-lm-2021")
ROWS_WIDTH = 60


def _stack_name(text: str) -> str:
    """argparse type: a preset id, or a one-line error naming the valid ones."""
    from core.stacks import UnknownStackError, get_preset  # noqa: PLC0415

    try:
        return get_preset(text).id
    except UnknownStackError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_stack_option(parser: argparse.ArgumentParser, what: str) -> None:
    from core.stacks import PRESETS  # noqa: PLC0415

    parser.add_argument("--stack", type=_stack_name, metavar="NAME",
                        help=f"{what}: " + STACK_HELP.format(names=", ".join(PRESETS)))


def apply_stack_option(design, args):
    """``design`` under the ``--stack`` preset when one was given (a copy), else itself."""
    if not args.stack:
        return design
    from core.stacks import apply_stack  # noqa: PLC0415

    return apply_stack(design, args.stack)


def add_stacks_command(sub, make_subcommand) -> None:
    """Register ``stacks``; ``make_subcommand`` is cli.py's helper that adds the help example."""
    parser = make_subcommand(
        sub, "stacks", "list software-stack presets",
        "List the software-stack presets (the performance model's efficiency assumptions of "
        "one training framework) with the published runs each was checked against (row ids "
        "of docs/validation.md). Choose one with --stack NAME on evaluate or generate.",
        "cluster-designer stacks --format json")
    parser.add_argument("--format", choices=("json", "table"), default="table",
                        help="table: id, year, name, validation rows; json: every preset with its "
                             "description and assumption overrides (default: table)")


def stacks_text(args) -> str:
    from core.stacks import PRESETS  # noqa: PLC0415

    presets = list(PRESETS.values())
    if args.format == "json":
        return json.dumps([p.to_json() for p in presets], indent=2)
    rows = [("ID", "YEAR", "NAME", "CHECKED AGAINST")] + [
        (p.id, str(p.year), p.name, p.checked_against_text) for p in presets]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    indent = " " * (sum(widths) + 6)
    lines = []
    for r in rows:
        head = f"{r[0]:<{widths[0]}}  {r[1]:<{widths[1]}}  {r[2]:<{widths[2]}}  "
        wrapped = textwrap.wrap(r[3], ROWS_WIDTH, break_on_hyphens=False)
        lines.append(head + ("\n" + indent).join(wrapped))
    return "\n".join(lines)
