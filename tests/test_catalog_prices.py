"""Prices in the catalog: every built-in entry has one with its source, year and evidence tag;
a user catalog may restate a built-in's price; a malformed price is refused naming the entry
and the field. Sanity checks compare prices the way a buyer would."""

from __future__ import annotations

import dataclasses

import copy
import json
import re
from pathlib import Path

import pytest

from core.catalog import BUILTIN_CATALOG_DIR, USER_CATALOG_ENV, load_catalog, load_catalog_file
from core.catalog_prices import MAX_PRICE_USD, PRICE_EVIDENCE, PRICE_YEARS, price_problem
from core.errors import CatalogError

BUILTIN_ENTRIES = [
    (path.name, entry)
    for path in sorted(BUILTIN_CATALOG_DIR.glob("*.json"))
    for entry in json.loads(path.read_text(encoding="utf-8"))["components"]
]


def usd(catalog, component_id: str) -> float:
    return catalog.get(component_id).price.usd


def assert_valid_price(entry: dict) -> None:
    """What the catalog test demands of a built-in entry: a valid price with a source that
    points at the evidence file."""
    price = entry.get("price")
    assert price is not None, f"{entry['id']} has no price"
    assert price_problem(price, 100_000) is None, (entry["id"], price_problem(price, 100_000))
    # docs/reference/prices.md holds the evidence for the entries before 2025-26,
    # docs/reference/prices-2025-26.md for the newer ones
    assert price["source"].startswith(("prices.md §", "prices-2025-26.md §")), entry["id"]


# --------------------------------------------------------------------------- built-in prices


def test_the_catalog_has_ninety_seven_entries_to_price():
    # the counts the price tables cover: 71 in docs/reference/prices.md (50 + the four splitter
    # cables of breakout links + H800-SXM, HGX-H800 and MI325X-Platform for the inference
    # validation + the Jericho3-AI scheduled-fabric switch of issue 23 + the single-mode
    # OSFP-800G-2xDR4, OSFP-800G-DR4 and Fiber-SMF-Splitter-1x2 that match optics media at both
    # ends, issue 22 + seven long-reach single-mode modules, two long single-mode fibres and a
    # patch-panel breakout for
    # a placed site's cross-hall runs, issue 26), 27 in docs/reference/prices-2025-26.md
    assert len(BUILTIN_ENTRIES) == 98
    assert sum(entry["price"]["source"].startswith("prices-2025-26.md") for _, entry in BUILTIN_ENTRIES) == 27


def test_every_price_cited_from_prices_md_is_in_the_section_it_cites():
    # the evidence a reviewer reads must hold each entry, in the cited section, at its price
    text = (Path(__file__).parents[1] / "docs" / "reference" / "prices.md").read_text(encoding="utf-8")
    sections = {int(number): body for number, body in
                re.findall(r"^## (\d+)\. .*?$(.*?)(?=^## |\Z)", text, re.M | re.S)}
    cited = [(entry, int(entry["price"]["source"].split("§")[1].split(";")[0]))
             for _, entry in BUILTIN_ENTRIES if entry["price"]["source"].startswith("prices.md §")]
    assert len(cited) == 71
    for entry, section in cited:
        row = re.search(rf"^\| {re.escape(entry['id'])} \| ([\d,]+) \| (\d{{4}}) \| (\w+) \|",
                        sections.get(section, ""), re.M)
        assert row, f"{entry['id']} is not in prices.md §{section}"
        price = entry["price"]
        assert (int(row[1].replace(",", "")), int(row[2]), row[3]) == (price["usd"], price["year"], price["evidence"])


@pytest.mark.parametrize("file_name, entry", BUILTIN_ENTRIES,
                         ids=[entry["id"] for _, entry in BUILTIN_ENTRIES])
def test_every_built_in_entry_has_a_sourced_price(file_name, entry):
    assert_valid_price(entry)
    if entry["price"]["evidence"] == "estimate":
        # an estimate without its reasoning could not be checked or updated by anyone
        assert entry["price"].get("note"), entry["id"]


@pytest.mark.parametrize("damage", [
    lambda e: e.pop("price"),
    lambda e: e["price"].pop("source"),
    lambda e: e["price"].pop("year"),
    lambda e: e["price"].pop("evidence"),
    lambda e: e["price"].update(usd=0),
    lambda e: e["price"].update(source="   "),
], ids=["no price", "no source", "no year", "no evidence", "free", "blank source"])
def test_the_built_in_check_fails_on_an_entry_without_a_proper_price(damage):
    entry = copy.deepcopy(dict(BUILTIN_ENTRIES[0][1]))
    damage(entry)
    with pytest.raises(AssertionError):
        assert_valid_price(entry)


def test_prices_reach_the_loaded_specs_and_the_catalog_json(catalog):
    price = catalog.get("DGX-H100").price
    assert price.usd > 0 and price.evidence in PRICE_EVIDENCE
    assert catalog.get("DGX-H100").to_json()["price"] == price.to_json()  # `catalog --format json` shows it


# --------------------------------------------------------------------------- sanity checks


def test_a_dgx_costs_more_than_the_gpus_it_holds(catalog):
    # A DGX's price includes its 8 GPUs (plus CPUs, NICs, NVSwitches): less would mean the
    # server and module prices disagree about what a unit is.
    for server in ("DGX-A100", "DGX-H100", "DGX-H200", "DGX-B200", "MI300X-Platform", "HLS-3"):
        spec = catalog.get(server)
        gpus = spec.accelerators * usd(catalog, spec.accelerator)
        nics = spec.nics * usd(catalog, spec.nic) if spec.nic else 0
        assert usd(catalog, server) > gpus + nics, server


def test_a_super_node_costs_more_than_its_accelerators(catalog):
    for system in ("GB200-NVL72", "CloudMatrix384", "GB200-Compute-Tray"):
        spec = catalog.get(system)
        assert usd(catalog, system) > spec.accelerators * usd(catalog, spec.accelerator)


def test_a_dgx_b300_costs_what_public_reporting_says_and_no_less_than_its_parts(catalog):
    # issue 22: $555k against $300-410k in public reporting (prices-2025-26.md, changes)
    spec = catalog.get("DGX-B300")
    parts = (spec.accelerators * usd(catalog, "B300") + 50_000  # the $50,000 host platform
             + spec.nics * usd(catalog, spec.nic) + 2 * usd(catalog, "BlueField-3"))
    assert 300_000 <= usd(catalog, "DGX-B300") <= 410_000
    assert usd(catalog, "DGX-B300") >= parts


def test_cloudmatrix384_is_the_sum_of_its_parts(catalog):
    # prices.md §2's table: the FT's $8.2M = 384 NPUs + UB switches + NICs + 6,912 800G LPO
    # modules at $250 (SemiAnalysis' count) + hosts and racks; the remainder must be positive
    spec = catalog.get("CloudMatrix384")
    parts = spec.accelerators * usd(catalog, spec.accelerator) + spec.nics * usd(catalog, spec.nic)
    parts += sum(s.count * usd(catalog, s.id) for s in spec.scale_up_switches)
    hosts_and_racks = usd(catalog, "CloudMatrix384") - parts - 6_912 * 250
    assert hosts_and_racks == pytest.approx(276_800)


def test_a_hand_drawn_nvl72_costs_about_the_catalog_rack(catalog):
    # 18 compute trays + 18 NVLink5 chips drawn by hand must not price far from the rack they
    # evaluate like (the rack adds only its frame, power shelves and NVLink cartridges).
    drawn = 18 * usd(catalog, "GB200-Compute-Tray") + 18 * usd(catalog, "NVLink5-Switch-Chip")
    assert 0.9 * usd(catalog, "GB200-NVL72") <= drawn < usd(catalog, "GB200-NVL72")


def test_faster_optics_cost_more(catalog):
    # per module, more bandwidth costs more at the same reach class
    assert usd(catalog, "OSFP-800G-2xSR4") > usd(catalog, "OSFP-400G-SR4") > usd(catalog, "QSFP-200G")
    assert usd(catalog, "OSFP-1.6T-2xDR4") > usd(catalog, "OSFP-400G-DR4")
    # single-mode reaches farther for more money
    assert usd(catalog, "OSFP-400G-DR4") > usd(catalog, "OSFP-400G-SR4")


def test_newer_gpus_cost_more(catalog):
    assert (usd(catalog, "A100-SXM4-80GB") < usd(catalog, "H100-SXM5-80GB")
            < usd(catalog, "H200-SXM") < usd(catalog, "B200"))
    assert usd(catalog, "DGX-A100") < usd(catalog, "DGX-H100") < usd(catalog, "DGX-H200") < usd(catalog, "DGX-B200")


def test_network_parts_cost_what_their_role_suggests(catalog):
    # a 64-port switch costs more than any single NIC or module that plugs into it
    for switch in ("QM9700", "SN5600", "TH5", "Q3400"):
        assert usd(catalog, switch) > usd(catalog, "ConnectX-8") > usd(catalog, "OSFP-1.6T-2xDR4")
    # a DPU is a NIC plus Arm cores and memory
    assert usd(catalog, "BlueField-3") > usd(catalog, "ConnectX-7")
    # a cable costs less than the optical module at either end of it
    assert usd(catalog, "Fiber-MMF") < usd(catalog, "OSFP-400G-SR4")


def test_the_compute_fabric_is_a_minor_share_of_hardware_cost(catalog):
    # decisions-and-serving.md: the network is typically 10-20% of a GPU cluster's hardware
    # cost; the compute fabric alone sits below that. 32 DGX H100 (256 GPUs), rail-optimised
    # 2-tier QM9700 at full bisection: 8 leaves + 4 spines; a 400G SR4 module per NIC, a twin
    # 800G module per switch cage (12 switches x 32 cages), one MMF cable per 400G link.
    servers = 32 * usd(catalog, "DGX-H100")
    network = (12 * usd(catalog, "QM9700") + 256 * usd(catalog, "OSFP-400G-SR4")
               + 12 * 32 * usd(catalog, "OSFP-800G-2xSR4") + 512 * usd(catalog, "Fiber-MMF"))
    assert 0.05 < network / (servers + network) < 0.20


# --------------------------------------------------------------------------- validation


def _entry(**price) -> dict:
    return {"id": "Acme-NIC", "kind": "nic", "vendor": "Acme", "name": "Acme 400G", "ports": 1,
            "port_gbit_s": 400, "power_w": 20, "source": "test", "confidence": "E",
            "price": {"usd": 1000, "year": 2025, "evidence": "list", "source": "Acme price list",
                      **price}}


def _write(tmp_path: Path, entries: list[dict]) -> Path:
    path = tmp_path / "user.json"
    path.write_text(json.dumps({"components": entries}), encoding="utf-8")
    return path


@pytest.mark.parametrize("price, field", [
    ({"usd": 0}, "price.usd"),
    ({"usd": -5}, "price.usd"),
    ({"usd": "1000"}, "price.usd"),
    ({"usd": True}, "price.usd"),
    ({"usd": MAX_PRICE_USD * 10}, "price.usd"),
    ({"year": 1999}, "price.year"),
    ({"year": PRICE_YEARS[1] + 1}, "price.year"),
    ({"year": 2024.5}, "price.year"),
    ({"evidence": "rumour"}, "price.evidence"),
    ({"source": ""}, "price.source"),
    ({"source": None}, "price.source"),
    ({"note": ""}, "price.note"),
    ({"currency": "EUR"}, "price.currency"),
])
def test_a_malformed_price_names_the_entry_and_the_field(tmp_path, price, field):
    path = _write(tmp_path, [_entry(**price)])
    with pytest.raises(CatalogError) as info:
        load_catalog_file(path)
    message = str(info.value)
    assert str(path) in message and "'Acme-NIC'" in message and repr(field) in message
    assert "\n" not in message


def test_a_price_that_is_not_an_object_is_refused(tmp_path):
    entry = _entry()
    entry["price"] = 1000
    with pytest.raises(CatalogError, match=r"'Acme-NIC' field 'price': expected an object"):
        load_catalog_file(_write(tmp_path, [entry]))


def test_an_entry_without_a_price_loads_as_unpriced(tmp_path):
    entry = _entry()
    del entry["price"]
    (spec,) = load_catalog_file(_write(tmp_path, [entry]))
    assert spec.price is None  # the cost analysis reports it unpriced, never as free


# --------------------------------------------------------------------------- user catalog


@pytest.fixture
def user_catalog(tmp_path, monkeypatch):
    def write(entries: list[dict]) -> Path:
        path = _write(tmp_path, entries)
        monkeypatch.setenv(USER_CATALOG_ENV, str(path))
        return path
    return write


def test_a_user_entry_overrides_a_built_in_price(user_catalog, catalog):
    mine = catalog.get("QM9700").to_json()
    mine["price"] = {"usd": 30000, "year": 2026, "evidence": "list",
                     "source": "our 2026 framework agreement"}
    path = user_catalog([mine])
    loaded = load_catalog()
    assert loaded.warnings == ()
    assert loaded.get("QM9700").price.usd == 30000
    assert loaded.get("QM9700").origin == str(path)  # the BOM can say whose price it is
    # only that entry changed: every other price and every spec is the built-in one
    for spec in catalog:
        if spec.id != "QM9700":
            assert loaded.get(spec.id) == spec
    assert dataclasses.replace(loaded.get("QM9700"), price=None, origin="") == \
        dataclasses.replace(catalog.get("QM9700"), price=None, origin="")


def test_a_price_override_written_before_release_years_still_loads(user_catalog, catalog):
    # a user copy made before entries carried year/status restates the price without them:
    # the file keeps working, and the entry keeps the built-in's year and status
    mine = catalog.get("QM9700").to_json()
    del mine["year"], mine["status"]
    mine["price"] = {"usd": 30000, "year": 2026, "evidence": "list", "source": "our deal"}
    user_catalog([mine])
    loaded = load_catalog()
    assert loaded.warnings == ()
    assert loaded.get("QM9700").price.usd == 30000
    assert (loaded.get("QM9700").year, loaded.get("QM9700").status) == (2022, "shipping")


def test_a_user_entry_changing_more_than_the_price_is_left_out(user_catalog, catalog):
    mine = catalog.get("QM9700").to_json()
    mine["price"] = {"usd": 30000, "year": 2026, "evidence": "list", "source": "our deal"}
    mine["latency_ns"] = 1  # a spec with a cited source must not drift between machines
    path = user_catalog([mine])
    loaded = load_catalog()
    (warning,) = loaded.warnings
    assert str(path) in warning and "duplicate catalog id" in warning and "'price'" in warning
    assert loaded.get("QM9700").price.usd == usd(catalog, "QM9700")


def test_a_malformed_user_price_is_a_warning_naming_where(user_catalog, catalog):
    mine = catalog.get("QM9700").to_json()
    mine["price"] = {"usd": 30000, "year": 2026, "evidence": "quote", "source": "our deal"}
    path = user_catalog([mine, _entry()])
    loaded = load_catalog()
    (warning,) = loaded.warnings
    assert warning.startswith("user catalog ignored: ")
    assert str(path) in warning and "'QM9700'" in warning and "'price.evidence'" in warning
    # the built-in catalog keeps working with its own prices
    assert loaded.get("QM9700").price.usd == usd(catalog, "QM9700")
