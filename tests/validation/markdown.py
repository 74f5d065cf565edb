"""Markdown pieces of docs/validation.md shared by report.py and serving_report.py."""

from __future__ import annotations


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return out + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]


def hardware_cell(case) -> str:
    """A row's hardware (a training or a serving case): its note and the command that builds
    it (the generators ``suite.build_design`` calls)."""
    hw = case.hardware
    if hw["template"] == "supernode":
        switch = f" --switch {hw['switch']}" if hw.get("switch") else ""
        gen = f"`generate supernode --system {hw['system']} --count {hw['count']}{switch}`"
    else:
        gen = (f"`generate fat-tree --gpus {hw['gpus']} --server {hw['server']} "
               f"--switch {hw['switch']}`")
    return f"{case.hardware_note}; {gen}"
