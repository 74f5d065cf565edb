"""Component catalog: typed specs loaded from ``resources/catalog/*.json`` and user files.

Every entry is a JSON object with ``id``, ``kind``, ``vendor``, ``name``, ``source`` and
``confidence`` plus the fields its kind declares in ``FIELDS`` below. Units are in the field
names. A bad entry raises ``CatalogError`` naming the file, the id and the field; a good one
becomes its kind's frozen dataclass (core/catalog_spec.py), whose attributes the analyses read.
"""

from __future__ import annotations

import dataclasses
import math
import os
from pathlib import Path
from typing import Any, Iterable

from core.catalog_fabric import fabric_problem
from core.catalog_media import media_problem
from core.catalog_prices import RETIRED_PRICE_FIELD, RETIRED_PRICE_MESSAGE, price_problem
from core.catalog_spec import ComponentSpec, NodeSpec, build_spec
from core.cooling import CATALOG_COOLING
from core.design_fields import EVIDENCE_TAGS_RE, MAX_ID_CHARS, check_text, show
from core.dpu_engines import engines_problem
from core.errors import CatalogError
from core.jsonfile import read_json

BUILTIN_CATALOG_DIR = Path(__file__).resolve().parent.parent / "resources" / "catalog"
USER_CATALOG_ENV = "CLUSTER_DESIGNER_USER_CATALOG"

KINDS = (
    "accelerator",
    "server",
    "supernode",
    "switch",
    "nic",
    "dpu",
    "transceiver",
    "cable",
    "storage",
    "appliance",
)

# Kinds that hold accelerators and therefore count as compute nodes in a design.
COMPUTE_KINDS = ("server", "supernode")

PRECISIONS = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")

_NUMBER = (int, float)

# field name -> (python types, required, default). ``None`` default with required=False means
# "absent"; analyses fall back to documented assumptions.
_COMMON: dict[str, tuple[tuple[type, ...], bool, Any]] = {
    "id": ((str,), True, None),
    "kind": ((str,), True, None),
    "vendor": ((str,), True, None),
    "name": ((str,), True, None),
    "source": ((str,), True, None),
    "confidence": ((str,), True, None),
    "notes": ((str,), False, ""),
    # {"usd", "year", "evidence", "source", "note"}: see core/catalog_prices.py
    "price": ((dict,), False, None),
    "failure_rate_per_1000_days": (_NUMBER, False, None),
    "failure_rate_source": ((str,), False, ""),
    # First shipment, or announcement for an ``announced`` part: lets a user find what is current
    # (``catalog --since 2025``) and see that a design uses hardware that cannot be bought yet.
    "year": ((int,), False, None),
    "status": ((str,), False, None),
}

FIELDS: dict[str, dict[str, tuple[tuple[type, ...], bool, Any]]] = {
    "accelerator": {
        "tflops_dense": ((dict,), True, None),
        "hbm_gb": (_NUMBER, True, None),
        "hbm_tbyte_s": (_NUMBER, True, None),
        "tdp_w": (_NUMBER, True, None),
        "scale_up_gbyte_s_per_dir": (_NUMBER, True, None),
        "scale_up_tech": ((str,), False, ""),
        "scale_up_links": ((int,), False, None),
        "scale_up_effective_gbyte_s": (_NUMBER, False, None),
        # GB/s per direction between one GPU and its host's memory (PCIe, NVLink-C2C): where a
        # KV cache placed in host memory is read from (core/analysis/serving_phase.py)
        "host_link_gbyte_s": (_NUMBER, False, None),
        # memory.total as the driver reports it (nvidia-smi), MiB; absent: hbm_gb read as GiB
        "hbm_reported_mib": (_NUMBER, False, None),
    },
    "server": {
        "accelerator": ((str,), True, None),
        "accelerators": ((int,), True, None),
        "scale_up_domain": ((int,), False, None),
        "scale_up_switches": ((list,), False, []),
        # Scale-up ports that leave the node for drawn scale-up switches (a GB200 compute
        # tray's NVLink ports to the switch trays); 0 when the scale-up fabric is all inside.
        "scale_up_ports": ((int,), False, 0),
        "scale_up_port_gbit_s": (_NUMBER, False, None),
        "nic": ((str,), False, None),
        "nics": ((int,), False, 0),
        # NIC ports one module cage of the node holds (core/optics.py): 2 where two
        # single-port NICs share a twin-port OSFP cage (DGX H100: 4 cages for 8 ConnectX-7),
        # 1 where each NIC port has its own cage (a ConnectX-8 in a DGX B300 or GB300 tray)
        "nic_ports_per_cage": ((int,), False, 1),
        "dpu": ((str,), False, None),
        "dpus": ((int,), False, 0),
        "max_power_kw": (_NUMBER, True, None),
        "typical_power_kw": (_NUMBER, False, None),
        "rack_units": ((int,), False, None),
        "per_rack": ((int,), False, 1),
        "cooling": ((str,), False, "air"),
        "cpus": ((int,), False, 0),
    },
    "switch": {
        "role": ((str,), True, None),
        "protocol": ((str,), True, None),
        "ports_by_gbit_s": ((dict,), True, None),
        "capacity_tbit_s": (_NUMBER, False, None),
        "latency_ns": (_NUMBER, True, None),
        "max_power_w": (_NUMBER, True, None),
        "typical_power_w": (_NUMBER, False, None),
        "rack_units": ((int,), False, None),
        "chassis": ((bool,), False, False),
        "in_network_reduction": ((bool,), False, False),
        # Native ports one module cage holds: 2 where ports_by_gbit_s counts each half of a
        # twin-port OSFP (QM9700: 64 x 400G in 32 cages), 1 where it counts cages (SN5600:
        # 64 x 800G cages). Breakout links use the cage's module (core/inventory.py).
        "ports_per_cage": ((int,), False, 2),
        # Optics co-packaged with the switch ASIC (Quantum-X / Spectrum-X Photonics): fibers
        # plug straight into the switch, so its link ends take no pluggable module; the
        # optics' power and price are in the switch's own figures.
        "co_packaged_optics": ((bool,), False, False),
        # How it spreads and holds traffic (core/catalog_fabric.py): modes it can run,
        # flow control, packet buffer, and the evidence for them
        "load_balancing": ((list,), False, None),
        "flow_control": ((str,), False, None),
        "buffer_mb": (_NUMBER, False, None),
        "fabric_source": ((str,), False, ""),
    },
    "nic": {
        "ports": ((int,), True, None),
        "port_gbit_s": (_NUMBER, True, None),
        "power_w": (_NUMBER, True, None),
        "effective_gbyte_s": (_NUMBER, False, None),
        "protocols": ((list,), False, []),
        # Port modes like a switch's (ConnectX-8: {"800": 1, "400": 2, "200": 4}); absent means
        # the one mode {port_gbit_s: ports}.
        "ports_by_gbit_s": ((dict,), False, None),
        # {protocol: [load-balancing modes it takes part in]} and lossy-fabric recovery
        # (core/catalog_fabric.py)
        "load_balancing_by_protocol": ((dict,), False, None),
        "selective_retransmit": ((bool,), False, False),
        "fabric_source": ((str,), False, ""),
    },
    "transceiver": {
        "gbit_s": (_NUMBER, True, None),
        "lanes": ((int,), False, 1),
        "reach_m": (_NUMBER, True, None),
        "power_w": (_NUMBER, True, None),
        "medium": ((str,), True, None),
        # multimode (SR optics) or single-mode (DR/FR/LR); absent: matches either (optics.py)
        "fiber": ((str,), False, None),
    },
    "cable": {
        "medium": ((str,), True, None),
        "fiber": ((str,), False, None),  # a fibre cable's type, as a transceiver's
        "reach_m": (_NUMBER, True, None),
        "ns_per_m": (_NUMBER, True, None),
        "power_w": (_NUMBER, False, 0.0),
        "fanout": ((int,), False, 1),  # ends one cable fans out to: 2 for a 1:2 splitter
    },
    "storage": {
        "read_gbyte_s": (_NUMBER, True, None),
        "write_gbyte_s": (_NUMBER, True, None),
        "capacity_tb": (_NUMBER, False, None),
        "ports": ((int,), True, None),
        "port_gbit_s": (_NUMBER, True, None),
        "max_power_w": (_NUMBER, True, None),
        "typical_power_w": (_NUMBER, False, None),
        "rack_units": ((int,), False, None),
    },
}
# Management appliances on a fabric (e.g. InfiniBand subnet managers): they take switch ports
# and draw power but carry no training traffic.
FIELDS["appliance"] = {
    "role": ((str,), False, "fabric-manager"),
    "ports": ((int,), True, None),
    "port_gbit_s": (_NUMBER, True, None),
    "max_power_w": (_NUMBER, True, None),
    "typical_power_w": (_NUMBER, False, None),
    "rack_units": ((int,), False, None),
}
FIELDS["supernode"] = {
    **FIELDS["server"],
    "racks": ((int,), False, 1),
    "scale_up_tiers": ((int,), False, 1),
}
FIELDS["dpu"] = {
    **FIELDS["nic"],
    # What its engines do (core/dpu_engines.py): {"storage": {"gbyte_s": 50}, ...}
    "engines": ((dict,), False, None),
    # Host CPU cores one DPU frees when used, for the whole DPU (else per engine)
    "offload_cores_freed": (_NUMBER, False, None),
}

# Bounds of every catalog number: far beyond any real part, low enough that the analyses'
# products stay finite (an accelerator count of 10**30 or a price of 1e308 would not).
MAX_CATALOG_NUMBER = 1e12
MAX_CATALOG_INTEGER = 1_000_000
MAX_CATALOG_TEXT = 100_000  # sources and notes cite at length

SWITCH_ROLES = ("scale-out", "scale-up")
STATUSES = ("shipping", "announced")
# Release years a catalog entry may carry: far enough back for any part still in service and
# forward for roadmap announcements; a typo such as 20255 or 225 is caught.
YEARS = (2000, 2035)
COOLING = CATALOG_COOLING  # "liquid" (older files) is cold-plate


class Catalog:
    """All component specs by id. Immutable after construction.

    ``warnings`` are problems met while loading that did not stop it (a user catalog that was
    left out), one line each, for the CLI and the GUI to show."""

    def __init__(self, specs: Iterable[ComponentSpec], warnings: Iterable[str] = ()):
        self.warnings: tuple[str, ...] = tuple(warnings)
        self._specs: dict[str, ComponentSpec] = {}
        for spec in specs:
            if spec.id in self._specs:
                first = self._specs[spec.id].origin
                hint = ("; a user entry may redefine a built-in one only to change its 'price'"
                        if Path(first).parent == BUILTIN_CATALOG_DIR else "")
                raise CatalogError(
                    f"{spec.origin}: entry {spec.id!r} field 'id': duplicate catalog id "
                    f"(already defined in {first}{hint})"
                )
            self._specs[spec.id] = spec
        self._check_references()

    def __contains__(self, component_id: str) -> bool:
        return component_id in self._specs

    def __iter__(self):
        return iter(self._specs.values())

    def __len__(self) -> int:
        return len(self._specs)

    def get(self, component_id: str) -> ComponentSpec:
        try:
            return self._specs[component_id]
        except KeyError:
            raise CatalogError(f"unknown component id {component_id!r}") from None

    def require(self, component_id: str, *kinds: str) -> ComponentSpec:
        """The spec for ``component_id``, which must be one of ``kinds``."""
        spec = self.get(component_id)
        if kinds and spec.kind not in kinds:
            raise CatalogError(
                f"{component_id!r} is a {spec.kind}, expected {' or '.join(kinds)}"
            )
        return spec

    def by_kind(self, kind: str) -> list[ComponentSpec]:
        return [s for s in self._specs.values() if s.kind == kind]

    def _check_references(self) -> None:
        refs = {
            "accelerator": ("accelerator",),
            "nic": ("nic", "dpu"),
            "dpu": ("dpu", "nic"),
        }
        for spec in self._specs.values():
            if not isinstance(spec, NodeSpec):
                continue
            for key, kinds in refs.items():
                ref = {"accelerator": spec.accelerator, "nic": spec.nic, "dpu": spec.dpu}[key]
                if ref is None:
                    continue
                target = self._specs.get(ref)
                if target is None or target.kind not in kinds:
                    raise CatalogError(
                        f"{spec.origin}: entry {spec.id!r} field {key!r}: "
                        f"unknown {'/'.join(kinds)} id {ref!r}"
                    )
            for index, item in enumerate(spec.scale_up_switches):
                target = self._specs.get(item.id)
                if target is None or target.kind != "switch":
                    raise CatalogError(
                        f"{spec.origin}: entry {spec.id!r} field 'scale_up_switches[{index}]': "
                        f"unknown switch id {item.id!r}"
                    )


def _type_name(types: tuple[type, ...]) -> str:
    if types == _NUMBER:
        return "a number"
    return " or ".join(
        {"str": "a string", "int": "an integer", "dict": "an object", "list": "a list",
         "bool": "true/false"}[t.__name__]
        for t in types
    )


def _check_type(value: Any, types: tuple[type, ...]) -> bool:
    if isinstance(value, bool) and bool not in types:
        return False
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return isinstance(value, types)


def _out_of_range(value: Any) -> str:
    """Why a catalog number is out of range ("" when it is fine): negative, or too large."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return ""
    if value < 0:
        return "must not be negative"
    high = MAX_CATALOG_INTEGER if isinstance(value, int) else MAX_CATALOG_NUMBER
    if value > high:
        return f"{show(value)} is above the maximum {high:,}"
    return ""


def parse_entry(raw: Any, origin: str, index: int) -> ComponentSpec:
    """Validate one raw JSON entry and build its spec."""
    if not isinstance(raw, dict):
        raise CatalogError(f"{origin}: entry #{index} is not a JSON object")
    entry_id = raw.get("id")
    label = f"entry {show(entry_id)}" if isinstance(entry_id, str) else f"entry #{index}"
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in FIELDS:
        raise CatalogError(
            f"{origin}: {label} field 'kind': {show(kind)} is not one of {', '.join(KINDS)}"
        )
    schema = {**_COMMON, **FIELDS[kind]}
    if RETIRED_PRICE_FIELD in raw:
        raise CatalogError(f"{origin}: {label} {RETIRED_PRICE_MESSAGE}")
    unknown = sorted(set(raw) - set(schema))
    if unknown:
        raise CatalogError(f"{origin}: {label} field {show(unknown[0])}: unknown field for a {kind}")
    values: dict[str, Any] = {}
    for name, (types, required, default) in schema.items():
        if name not in raw or raw[name] is None:
            if required:
                raise CatalogError(f"{origin}: {label} field {name!r}: missing")
            values[name] = default
            continue
        value = raw[name]
        if not _check_type(value, types):
            raise CatalogError(
                f"{origin}: {label} field {name!r}: expected {_type_name(types)}, got {show(value)}"
            )
        if isinstance(value, str):
            check_text(value, f"{origin}: {label} field {name!r}", CatalogError,
                       MAX_ID_CHARS if name in ("id", "kind", "accelerator", "nic", "dpu")
                       else MAX_CATALOG_TEXT)
        problem = _out_of_range(value)
        if problem:
            raise CatalogError(f"{origin}: {label} field {name!r}: {problem}")
        values[name] = value
    if not values["id"].strip():
        raise CatalogError(f"{origin}: {label} field 'id': must not be empty")
    if not EVIDENCE_TAGS_RE.match(values["confidence"]):
        raise CatalogError(
            f"{origin}: {label} field 'confidence': {values['confidence']!r} is not a tag like P, S, E or P/E"
        )
    if values["price"] is not None:
        problem = price_problem(values["price"], MAX_CATALOG_TEXT)
        if problem:
            raise CatalogError(f"{origin}: {label} field {problem[0]!r}: {problem[1]}")
    _check_kind_rules(values, origin, f"entry {values['id']!r}")
    return build_spec(values, origin)


def _check_kind_rules(values: dict[str, Any], origin: str, label: str) -> None:
    kind = values["kind"]

    def fail(name: str, message: str) -> None:
        raise CatalogError(f"{origin}: {label} field {name!r}: {message}")

    if kind == "accelerator":
        table = values["tflops_dense"]
        for precision, tflops in table.items():
            if precision not in PRECISIONS:
                fail("tflops_dense", f"unknown precision {show(precision)}")
            if tflops is not None and (not _check_type(tflops, _NUMBER) or tflops <= 0
                                       or _out_of_range(tflops)):
                fail("tflops_dense", f"{precision} must be a positive number up to "
                     f"{MAX_CATALOG_NUMBER:g}, got {show(tflops)}")
        if not table.get("bf16"):
            fail("tflops_dense", "needs a bf16 value")
        # the performance model divides by these (a user entry with 0 was a ZeroDivisionError)
        for name in ("hbm_gb", "hbm_tbyte_s", "scale_up_gbyte_s_per_dir"):
            if not values[name] > 0:
                fail(name, f"must be positive, got {show(values[name])}")
        if values["host_link_gbyte_s"] is not None and not values["host_link_gbyte_s"] > 0:
            fail("host_link_gbyte_s", f"must be positive, got {show(values['host_link_gbyte_s'])}")
        reported = values["hbm_reported_mib"]
        # the driver keeps some of the stacks back; it never reports more than they hold
        if reported is not None and not 0 < reported <= values["hbm_gb"] * 1024:
            fail("hbm_reported_mib", f"must be positive and at most hbm_gb x 1024 MiB "
                 f"({values['hbm_gb'] * 1024:g}), got {show(reported)}")
    if kind in COMPUTE_KINDS:
        if values["accelerators"] <= 0:
            fail("accelerators", "must be at least 1")
        domain = values["scale_up_domain"] or values["accelerators"]
        if domain <= 0:
            fail("scale_up_domain", "must be at least 1")
        values["scale_up_domain"] = domain
        if values["cooling"] not in COOLING:
            fail("cooling", f"must be one of {', '.join(COOLING)}")
        for i, item in enumerate(values["scale_up_switches"]):
            if (
                not isinstance(item, dict)
                or set(item) != {"id", "count"}
                or not isinstance(item.get("id"), str)
                or not _check_type(item.get("count"), (int,))
                or item["count"] <= 0
                or _out_of_range(item["count"])
            ):
                fail(f"scale_up_switches[{i}]", 'expected {"id": str, "count": positive int up to '
                     f'{MAX_CATALOG_INTEGER:,}}}, got {show(item)}')
        if values["scale_up_ports"] < 0:
            fail("scale_up_ports", "must not be negative")
        if values["scale_up_ports"] and not (values["scale_up_port_gbit_s"] or 0) > 0:
            fail("scale_up_port_gbit_s", "must be positive when scale_up_ports > 0")
        if values["nics"] and not values["nic"]:
            fail("nic", "required when nics > 0")
        if values["dpus"] and not values["dpu"]:
            fail("dpu", "required when dpus > 0")
        if values["max_power_kw"] <= 0:
            fail("max_power_kw", "must be positive")
    year = values["year"]
    if year is not None and not YEARS[0] <= year <= YEARS[1]:
        fail("year", f"must be a whole year from {YEARS[0]} to {YEARS[1]}, got {show(year)}")
    if values["status"] is not None and values["status"] not in STATUSES:
        fail("status", f"must be one of {', '.join(STATUSES)}, got {show(values['status'])}")
    if kind == "switch":
        if values["role"] not in SWITCH_ROLES:
            fail("role", f"must be one of {', '.join(SWITCH_ROLES)}")
        _check_port_modes(values["ports_by_gbit_s"], fail)
    if kind in ("nic", "dpu") and (values["ports"] <= 0 or values["port_gbit_s"] <= 0):
        fail("ports", "ports and port_gbit_s must be positive")
    if kind in ("nic", "dpu") and values["ports_by_gbit_s"] is not None:
        modes = values["ports_by_gbit_s"]
        _check_port_modes(modes, fail)
        # the modes describe the same card: its native ports must be one of them
        native = [count for speed, count in modes.items()
                  if abs(float(speed) - values["port_gbit_s"]) < 1e-6]
        if native != [values["ports"]]:
            fail("ports_by_gbit_s", f"must list the native mode "
                 f"{show(values['port_gbit_s'])}: {values['ports']} (ports x port_gbit_s)")
    if kind in ("nic", "dpu") and not all(isinstance(p, str) and len(p) <= MAX_ID_CHARS
                                          for p in values["protocols"]):
        fail("protocols", f"expected a list of protocol names, got {show(values['protocols'])}")
    problem = media_problem(kind, values, COMPUTE_KINDS)
    if problem:
        fail(*problem)
    if kind == "storage" and values["read_gbyte_s"] <= 0:
        fail("read_gbyte_s", "must be positive")
    problem = fabric_problem(kind, values, MAX_CATALOG_NUMBER)
    if problem:
        fail(*problem)
    if kind == "dpu" and values["engines"] is not None:
        problem = engines_problem(values["engines"], values["offload_cores_freed"],
                                  MAX_CATALOG_NUMBER, MAX_CATALOG_TEXT)
        if problem:
            fail(*problem)


def _check_port_modes(ports: dict[str, Any], fail) -> None:
    """Port modes {speed in Gb/s as text: port count}: at least one, positive speeds and counts."""
    if not ports:
        fail("ports_by_gbit_s", "needs at least one speed")
    for speed, count in ports.items():
        try:
            speed_value = float(speed)
        except ValueError:
            speed_value = math.nan
        if not 0 < speed_value <= MAX_CATALOG_NUMBER:  # refuses "nan" and "inf" too
            fail("ports_by_gbit_s", f"speed {show(speed)} is not a positive number")
        if not _check_type(count, (int,)) or count <= 0 or _out_of_range(count):
            fail("ports_by_gbit_s", f"{show(speed)}: port count must be a positive integer up to "
                 f"{MAX_CATALOG_INTEGER:,}")


def load_catalog_file(path: Path) -> list[ComponentSpec]:
    """Parse one catalog file: ``{"components": [...]}`` or a bare list of entries."""
    origin = str(path)
    data = read_json(path, CatalogError, "catalog")
    entries = data.get("components") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        where = "$.components" if isinstance(data, dict) else "$"
        raise CatalogError(f"{origin}: {where}: expected a list of entries under 'components'")
    return [parse_entry(raw, origin, i) for i, raw in enumerate(entries)]


def default_user_catalog_path() -> Path | None:
    """The user catalog named by the environment, or the per-user default if it exists."""
    env = os.environ.get(USER_CATALOG_ENV)
    if env:
        return Path(env)
    try:
        candidate = Path.home() / ".config" / "cluster-designer" / "user-catalog.json"
    except RuntimeError:  # no home folder (HOME unset, no passwd entry): no per-user catalog
        return None
    try:
        candidate.stat()
    except (FileNotFoundError, NotADirectoryError):  # nothing there, or a file where a folder should be
        return None
    except OSError:
        pass  # e.g. a folder we may not look into: reading the file will name the reason
    return candidate


def load_catalog(
    extra_files: Iterable[Path] = (), include_user: bool = True
) -> Catalog:
    """The built-in catalog plus the user catalog and ``extra_files``.

    User entries may add ids but not redefine built-in ones: a silent override of a spec with
    a cited source would make results irreproducible across machines. A user catalog that cannot
    be read or is invalid is left out with a warning (``Catalog.warnings``): the bundled catalog
    still works, so the app starts and says what is wrong instead of refusing to run.
    """
    specs: list[ComponentSpec] = []
    for path in sorted(BUILTIN_CATALOG_DIR.glob("*.json")):
        specs.extend(load_catalog_file(path))
    extra = [spec for path in extra_files for spec in load_catalog_file(Path(path))]
    warnings: list[str] = []
    if include_user:
        try:
            user = default_user_catalog_path()
            if user is not None:
                return Catalog(_with_price_overrides(specs, [*load_catalog_file(user), *extra]))
        except CatalogError as exc:
            warnings.append(f"user catalog ignored: {exc}")
    return Catalog(_with_price_overrides(specs, extra), warnings)


def _with_price_overrides(builtin: list[ComponentSpec],
                          user: list[ComponentSpec]) -> list[ComponentSpec]:
    """``builtin`` then ``user``, where a user entry that repeats a built-in id and differs from
    it only in its price takes the built-in's place.

    Prices depend on the buyer, the year and the deal, so a user may state their own; the specs
    carry cited sources and stay the same on every machine. Any other repeated id is left in
    for ``Catalog`` to refuse as a duplicate."""
    position = {spec.id: i for i, spec in enumerate(builtin)}
    merged = list(builtin)
    rest = []
    for spec in user:
        i = position.pop(spec.id, None)
        if i is not None and _differs_only_in_price(builtin[i], spec):
            merged[i] = _with_release_of(builtin[i], spec)
        else:
            rest.append(spec)
    return [*merged, *rest]


def _with_release_of(builtin: ComponentSpec, user: ComponentSpec) -> ComponentSpec:
    """``user`` with the built-in's release year and status where the user left them out: user
    catalogs written before entries carried them restate the price without them."""
    return dataclasses.replace(user, year=builtin.year if user.year is None else user.year,
                               status=builtin.status if user.status is None else user.status)


def _differs_only_in_price(builtin: ComponentSpec, user: ComponentSpec) -> bool:
    def spec_without_price(spec: ComponentSpec) -> ComponentSpec:
        # the price, the file and the release fields the user left out aside
        return dataclasses.replace(spec, price=None, origin="",
                                   year=None if user.year is None else spec.year,
                                   status=None if user.status is None else spec.status)


    return spec_without_price(builtin) == spec_without_price(user) and builtin.price != user.price


_DEFAULT: Catalog | None = None


def default_catalog() -> Catalog:
    """The process-wide catalog (built-in + user), loaded once."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_catalog()
    return _DEFAULT
