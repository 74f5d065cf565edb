"""Import-linter contract types of our own (registered in pyproject.toml [tool.importlinter]).

``private_names``: a module may use its own private names (``_x``) but never another module's.
A name that one module needs from another is that module's public interface, and says so by its
name; reaching into a private helper ties two modules together where nobody looks.

Import-linter's graph records which module imports which, not the names taken, so this contract
reads the importing module's source with ``ast``: ``from m import _x`` and ``m._x`` on a module
bound by an import both count, for every module ``m`` of the linted packages.
"""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import dataclass

from importlinter import Contract, ContractCheck, fields, output


@dataclass(frozen=True)
class PrivateUse:
    importer: str
    line: int
    owner: str   # the module the private name belongs to
    name: str


def _is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


class PrivateNamesContract(Contract):
    """No module of ``source_modules`` (or below) takes a private name from another module of
    the linted packages."""

    source_modules = fields.ListField(subfield=fields.ModuleField())

    def check(self, graph, verbose: bool) -> ContractCheck:
        modules = set()
        for source in self.source_modules:  # type: ignore[attr-defined]
            modules |= {source.name} | set(graph.find_descendants(source.name))
        internal = {m for m in graph.modules if not graph.is_module_squashed(m)}
        uses = [use for module in sorted(modules) for use in _private_uses(module, internal)]
        return ContractCheck(kept=not uses, metadata={"uses": uses})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for use in check.metadata["uses"]:
            output.print_error(
                f"{use.importer}:{use.line} takes private {use.name} from {use.owner}",
                bold=False)
            output.new_line()


def _private_uses(module: str, internal: set[str]) -> list[PrivateUse]:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return []
    with open(spec.origin, encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), spec.origin)
    package = module if spec.submodule_search_locations is not None else module.rpartition(".")[0]
    roots = {m.split(".")[0] for m in internal}
    uses: list[PrivateUse] = []
    bound: dict[str, str] = {}  # local name -> internal module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                root = alias.name.split(".")[0]
                if alias.asname and alias.name in internal:
                    bound[alias.asname] = alias.name
                elif not alias.asname and root in roots:
                    bound[root] = root  # "import a.b.c" binds a
        elif isinstance(node, ast.ImportFrom):
            owner = _absolute(node, package)
            if owner not in internal:
                continue
            for alias in node.names:
                if f"{owner}.{alias.name}" in internal:
                    bound[alias.asname or alias.name] = f"{owner}.{alias.name}"
                elif _is_private(alias.name) and owner != module:
                    uses.append(PrivateUse(module, node.lineno, owner, alias.name))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            owner = _dotted_module(node.value, bound, internal)
            if owner is not None and owner != module:
                uses.append(PrivateUse(module, node.lineno, owner, node.attr))
    return uses


def _absolute(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` statement names, made absolute."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _dotted_module(value: ast.expr, bound: dict[str, str], internal: set[str]) -> str | None:
    """The internal module an expression like ``coll`` or ``core.analysis.memory`` refers to."""
    parts = []
    while isinstance(value, ast.Attribute):
        parts.append(value.attr)
        value = value.value
    if not isinstance(value, ast.Name) or value.id not in bound:
        return None
    dotted = ".".join([bound[value.id], *reversed(parts)])
    return dotted if dotted in internal else None
