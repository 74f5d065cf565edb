"""Which catalog entry a discovered device is: the user's mapping file, then defaults.

A mapping file (``import ibnetdiscover DUMP --map MAP.json``)::

    {"format": "cluster-designer.fabric-map/1",
     "hosts":    [{"match": "^gpu",              "catalog_id": "DGX-H100"},
                  {"match": "^(login|controller)", "catalog_id": null}],
     "switches": [{"match": "SwitchIB",          "catalog_id": "QM8700"}]}

``match`` is a regular expression searched in the host name (hosts) or the node description
(switches); the first entry that matches wins, and a null ``catalog_id`` leaves such hosts out
(login, management or storage heads that the design should not hold). Devices no entry matches
take ``--server`` / ``--switch``; a switch whose description names a catalog switch
("MF0;sw01:MQM9700/U1", "Quantum-2 ...") is recognised without either.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from core.catalog import Catalog
from core.errors import DesignError
from core.jsonfile import read_json

MAP_FORMAT = "cluster-designer.fabric-map/1"
# Switch chip names in node descriptions that do not spell a catalog id (the firmware's default
# description, e.g. "Quantum-2 Mellanox Technologies"; the "MF0;host:MODEL/U1" form names it).
_CHIP_NAMES = (("quantum-x800", "Q3400"), ("quantum-2", "QM9700"), ("quantum2", "QM9700"),
               ("quantum mellanox", "QM8700"))
_MAX_RULES = 1000
_MAX_PATTERN_CHARS = 300


@dataclass(frozen=True)
class Rule:
    pattern: re.Pattern
    catalog_id: str | None


@dataclass(frozen=True)
class FabricMap:
    hosts: tuple[Rule, ...] = ()
    switches: tuple[Rule, ...] = ()
    server_id: str | None = None
    switch_id: str | None = None
    _known: dict = field(default_factory=dict, compare=False, repr=False)

    UNMAPPED = object()  # a host no rule and no --server names

    def host_for(self, host: str):
        for rule in self.hosts:
            if rule.pattern.search(host):
                return rule.catalog_id
        return self.server_id if self.server_id is not None else self.UNMAPPED

    def switch_for(self, description: str, catalog: Catalog) -> str | None:
        if description in self._known:
            return self._known[description]
        found = next((r.catalog_id for r in self.switches if r.pattern.search(description)), None)
        found = found or self.switch_id or _recognised(description, catalog)
        self._known[description] = found
        return found


def _recognised(description: str, catalog: Catalog) -> str | None:
    text = description.lower()
    for spec in catalog.by_kind("switch"):
        token = spec.id.lower()
        if re.search(rf"(?<![a-z0-9])m?{re.escape(token)}(?![a-z0-9])", text):
            return spec.id
    return next((cid for name, cid in _CHIP_NAMES if name in text and cid in catalog), None)


def fabric_map(path: str | Path | None, catalog: Catalog, server_id: str | None = None,
               switch_id: str | None = None) -> FabricMap:
    """The mapping: the rules of the file at ``path`` (if any), ``--server`` and ``--switch``."""
    for option, cid, kinds in (("--server", server_id, ("server", "supernode", "storage")),
                               ("--switch", switch_id, ("switch",))):
        if cid is not None:
            try:
                _check_id(catalog, cid, kinds)
            except DesignError as exc:
                raise DesignError(f"{option}: {exc}") from None
    if path is None:
        return FabricMap(server_id=server_id, switch_id=switch_id)
    raw = read_json(path, DesignError, "mapping file")
    name = Path(path).name
    if not isinstance(raw, dict):
        raise DesignError(f"{name}: $: expected a JSON object")
    unknown = sorted(set(raw) - {"format", "hosts", "switches"})
    if unknown:
        raise DesignError(f"{name}: $.{unknown[0]}: unknown key (expected format, hosts, switches)")
    if raw.get("format", MAP_FORMAT) != MAP_FORMAT:
        raise DesignError(f"{name}: $.format: expected {MAP_FORMAT!r}")
    hosts = _rules(raw.get("hosts", []), f"{name}: $.hosts", catalog, ("server", "supernode", "storage"),
                   allow_null=True)
    switches = _rules(raw.get("switches", []), f"{name}: $.switches", catalog, ("switch",),
                      allow_null=False)
    return FabricMap(hosts, switches, server_id, switch_id)


def _check_id(catalog: Catalog, cid: str, kinds: tuple[str, ...]) -> None:
    if cid not in catalog:
        raise DesignError(f"unknown catalog id {cid!r}")
    kind = catalog.get(cid).kind
    if kind not in kinds:
        raise DesignError(f"{cid!r} is a {kind}, expected {' or '.join(kinds)}")


def _rules(raw, where: str, catalog: Catalog, kinds: tuple[str, ...], allow_null: bool) -> tuple[Rule, ...]:
    if not isinstance(raw, list):
        raise DesignError(f"{where}: expected a list of {{match, catalog_id}} objects")
    if len(raw) > _MAX_RULES:
        raise DesignError(f"{where}: more than {_MAX_RULES} rules")
    rules = []
    for i, item in enumerate(raw):
        at = f"{where}[{i}]"
        if not isinstance(item, dict) or set(item) != {"match", "catalog_id"}:
            raise DesignError(f"{at}: expected an object with exactly match and catalog_id")
        pattern, cid = item["match"], item["catalog_id"]
        if not isinstance(pattern, str) or not pattern or len(pattern) > _MAX_PATTERN_CHARS:
            raise DesignError(f"{at}.match: expected a regular expression of 1-{_MAX_PATTERN_CHARS} characters")
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise DesignError(f"{at}.match: not a regular expression ({exc})") from None
        if cid is None and not allow_null:
            raise DesignError(f"{at}.catalog_id: a switch cannot be left out")
        if cid is not None:
            if not isinstance(cid, str):
                raise DesignError(f"{at}.catalog_id: expected a catalog id" + " or null" * allow_null)
            try:
                _check_id(catalog, cid, kinds)
            except DesignError as exc:
                raise DesignError(f"{at}.catalog_id: {exc}") from None
        rules.append(Rule(compiled, cid))
    return tuple(rules)
