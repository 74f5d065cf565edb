"""Power analysis: nameplate IT, facility, network share, rack density, energy per run.

Numbers are checked against /work/shared/reference/reliability-power.md (§8, §9) and
hardware.md (§2, §3, §6, §8); each assertion cites its row.
"""

from __future__ import annotations

import json

import pytest

from core.analysis.power import PowerAssumptions, analyze_power
from core.catalog import load_catalog, parse_entry
from core.inventory import Inventory, InventoryItem


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(include_user=False)


def item(spec, role, count, powered=True, **overrides):
    return InventoryItem(spec.id, spec.kind, role, count, spec, powered, dict(overrides))


def nodes(catalog, server_id, n):
    """n servers with their GPUs, NICs, DPUs and scale-up switches (inside the host budget)."""
    server = catalog.get(server_id)
    items = [
        item(server, "compute", n),
        item(catalog.get(server.accelerator), "accelerator", n * server.accelerators, False),
    ]
    if server.nics:
        items.append(item(catalog.get(server.nic), "nic", n * server.nics, False))
    if server.dpus:
        items.append(item(catalog.get(server.dpu), "dpu", n * server.dpus, False))
    for su in server.scale_up_switches:
        items.append(item(catalog.get(su.id), "scale-up", n * su.count, False))
    return items


def fabric_1024(catalog):
    """§8.3 row 1: 128 DGX H100 + 48 QM9700 (2-tier k=64) + 3,072 switch-side 400G optics."""
    return Inventory(tuple(
        nodes(catalog, "DGX-H100", 128)
        + [
            item(catalog.get("QM9700"), "leaf", 32),
            item(catalog.get("QM9700"), "spine", 16),
            item(catalog.get("OSFP-400G-SR4"), "transceiver", 3072),
            # Server-side optics are inside the DGX budget (hardware.md §6): not counted.
            item(catalog.get("OSFP-400G-SR4"), "transceiver", 1024, False),
        ]
    ))


def test_128_dgx_h100_compute_power(catalog):
    # hardware.md §2 / reliability-power.md §8.1: DGX H100 10.2 kW max -> 128 x 10.2 = 1,305.6 kW.
    result = analyze_power(Inventory(tuple(nodes(catalog, "DGX-H100", 128))), None, None)
    assert result.by_kind_kw["compute"] == pytest.approx(1305.6)
    assert result.it_kw == pytest.approx(1305.6)  # NICs, GPUs, NVSwitches are inside the budget
    assert list(result.by_kind_kw) == ["compute"]
    # hardware.md §3: H100 SuperPOD racks hold 4 DGX -> 40.8 kW ("> 40 kW per rack").
    assert result.max_rack_kw == pytest.approx(40.8)
    assert result.gpus == 1024


@pytest.mark.parametrize(
    "server_id,w_per_gpu",
    [
        ("DGX-A100", 812),   # §8.1 per-GPU all-in table: DGX A100 812 W
        ("DGX-H100", 1275),  # DGX H100 1,275 W
        ("DGX-B200", 1788),  # DGX B200 1,788 W
    ],
)
def test_per_gpu_all_in_watts(catalog, server_id, w_per_gpu):
    result = analyze_power(Inventory(tuple(nodes(catalog, server_id, 4))), None, None)
    assert result.compute_w_per_gpu == pytest.approx(w_per_gpu, abs=1.0)


def test_gb200_nvl72_per_gpu_and_rack(catalog):
    # §8.1: GB200 NVL72 1,667-2,014 W per GPU (120-145 kW per rack); liquid -> PUE 1.15 (hardware.md §8).
    result = analyze_power(Inventory(tuple(nodes(catalog, "GB200-NVL72", 2))), None, None)
    assert 1666 <= result.compute_w_per_gpu <= 2014  # 120 kW / 72 = 1,666.7 (table rounds)
    assert 120 <= result.max_rack_kw <= 145
    assert result.pue == pytest.approx(1.15)


def test_cloudmatrix_rack_is_system_over_racks(catalog):
    # hardware.md §3: CloudMatrix384 ~559 kW over 16 racks; ~1,456 W per NPU (§8.1).
    result = analyze_power(Inventory(tuple(nodes(catalog, "CloudMatrix384", 1))), None, None)
    assert result.max_rack_kw == pytest.approx(559 / 16, rel=0.01)
    assert result.compute_w_per_gpu == pytest.approx(1456, rel=0.01)


def test_default_pue_and_facility(catalog):
    # hardware.md §8 engine defaults: air-cooled 1.4 -> 1,305.6 x 1.4 = 1,827.8 kW facility.
    inventory = Inventory(tuple(nodes(catalog, "DGX-H100", 128)))
    result = analyze_power(inventory, None, None)
    assert result.pue == pytest.approx(1.4)
    assert result.facility_kw == pytest.approx(1305.6 * 1.4)
    # §11 "PUE 1.2" as an explicit user choice.
    explicit = analyze_power(inventory, None, None, PowerAssumptions(pue=1.2))
    assert explicit.pue == 1.2
    assert explicit.facility_kw == pytest.approx(1305.6 * 1.2)


def test_mixed_cooling_pue_is_compute_weighted(catalog):
    # 1 NVL72 (120 kW, liquid 1.15) + 12 DGX H100 (122.4 kW, air 1.4).
    inventory = Inventory(tuple(nodes(catalog, "GB200-NVL72", 1) + nodes(catalog, "DGX-H100", 12)))
    result = analyze_power(inventory, None, None)
    expected = (120 * 1.15 + 122.4 * 1.4) / 242.4
    assert result.pue == pytest.approx(expected)


def test_network_share_1024_gpu_two_tier(catalog):
    # §8.3 row 1: 1,024 GPUs, 2-tier k=64, 48 switches, 3,072 switch-side ends: 62-74 kW,
    # 4.5-5.4% of IT.
    result = analyze_power(fabric_1024(catalog), None, None)
    assert 62 <= result.network_kw <= 74
    assert 0.045 <= result.network_share <= 0.054
    assert list(result.by_kind_kw) == ["compute", "switch", "transceiver"]
    assert result.by_kind_kw["transceiver"] == pytest.approx(3072 * 9 / 1000)  # unpowered excluded
    # §8.1: ~1.4 kW of critical IT per GPU including ~10% for the rest of IT (network only here).
    assert 1275 < result.it_w_per_gpu < 1400


def test_network_rack_counts_switches_and_their_optics(catalog):
    # Network racks: switches_per_rack (8) x (750 W + 3,072 x 9 W / 48) = 10.6 kW < 40.8 kW DGX rack.
    result = analyze_power(fabric_1024(catalog), None, None)
    assert result.max_rack_kw == pytest.approx(40.8)
    dense = analyze_power(
        fabric_1024(catalog), None, None, PowerAssumptions(switches_per_rack=48)
    )
    assert dense.max_rack_kw == pytest.approx((48 * 750 + 3072 * 9) / 1000)


def test_method_check_gpt3_on_a100(catalog):
    # §9 method check: SC'21 GPT-3, 1,024 A100 x 33.9 days: ~833k GPU-hours;
    # 812 W x kappa 0.8 -> ~541 MWh IT; ~649 MWh at PUE 1.2.
    inventory = Inventory(tuple(nodes(catalog, "DGX-A100", 128)))
    result = analyze_power(inventory, 33.9, 1024, PowerAssumptions(pue=1.2))
    assert result.gpu_hours == pytest.approx(833_000, rel=0.001)
    assert result.energy_mwh_it == pytest.approx(541, rel=0.005)
    assert result.energy_mwh_facility == pytest.approx(649, rel=0.005)


def test_typical_fraction_applies_without_a_typical_figure():
    # §8.2 / §11: expected training draw 0.8 x nameplate when no typical figure is known.
    spec = parse_entry(
        {"id": "X-A100", "kind": "server", "vendor": "t", "name": "t", "source": "t",
         "confidence": "E", "accelerator": "A100-SXM4-80GB", "accelerators": 8,
         "max_power_kw": 6.5},
        "test", 0,
    )
    inventory = Inventory((item(spec, "compute", 128),))
    result = analyze_power(inventory, 33.9, None)
    assert result.typical_kw == pytest.approx(128 * 6.5 * 0.8)
    # Method check again (§9): ≈541 MWh IT. (No accelerator items: gpus = 0, job = whole design.)
    assert result.energy_mwh_it == pytest.approx(541, rel=0.005)
    half = analyze_power(inventory, 33.9, None, PowerAssumptions(typical_fraction=0.4))
    assert half.energy_mwh_it == pytest.approx(result.energy_mwh_it / 2)


def test_cost_and_co2_follow_facility_energy(catalog):
    # §9 steps 3-4: cost = E_fac x price, CO2e = E_fac x intensity (user inputs).
    inventory = Inventory(tuple(nodes(catalog, "DGX-H100", 16)))
    a = PowerAssumptions(electricity_usd_per_kwh=0.1, grid_t_co2_per_mwh=0.43)
    result = analyze_power(inventory, 10.0, None, a)
    assert result.energy_mwh_facility == pytest.approx(result.energy_mwh_it * 1.4)
    assert result.energy_cost_usd == pytest.approx(result.energy_mwh_facility * 100.0)
    assert result.co2_t == pytest.approx(result.energy_mwh_facility * 0.43)
    # GPT-3 anchor (§9): 1,287 MWh at 0.43 t/MWh ≈ 552 t.
    assert 1287 * 0.43 == pytest.approx(552, rel=0.01)


def test_job_on_part_of_cluster_pays_compute_share_plus_whole_network(catalog):
    inventory = fabric_1024(catalog)
    whole = analyze_power(inventory, 1.0, None)
    half = analyze_power(inventory, 1.0, 512)
    network_typical_kw = whole.by_kind_kw["switch"] * 0.8 + whole.by_kind_kw["transceiver"]
    compute_typical_kw = 128 * 7.75  # DGX-H100 typical_power_kw in the catalog
    assert whole.job_it_kw == pytest.approx(compute_typical_kw + network_typical_kw)
    assert half.job_it_kw == pytest.approx(compute_typical_kw / 2 + network_typical_kw)
    assert half.energy_mwh_it == pytest.approx(half.job_it_kw * 24 / 1000)
    assert half.gpu_hours == 512 * 24
    # Provisioned power does not depend on the job.
    assert half.it_kw == whole.it_kw


def test_no_run_days_means_no_energy(catalog):
    # no run (no workload, or a job that cannot run): no energy, not zero energy
    result = analyze_power(fabric_1024(catalog), None, 1024)
    assert result.energy_mwh_it is result.energy_mwh_facility is None
    assert result.energy_cost_usd is result.co2_t is result.gpu_hours is result.run_days is None
    assert result.it_kw > 0  # the design's own power is real


def test_job_larger_than_design_gets_no_run_energy(catalog):
    result = analyze_power(Inventory(tuple(nodes(catalog, "DGX-H100", 2))), 1.0, 64)
    assert result.job_gpus == 64 and result.energy_mwh_it is None and result.job_it_kw is None
    assert [d.code for d in result.diagnostics] == ["JOB_EXCEEDS_DESIGN"]


def test_powered_nics_and_item_overrides(catalog):
    server = catalog.get("DGX-H100")
    nic = catalog.get("ConnectX-7")
    inventory = Inventory((
        item(server, "compute", 2, max_power_kw=8.0),
        item(nic, "nic", 4, True),      # e.g. NICs in a white-box host outside the budget
        item(nic, "nic", 16, False),
    ))
    result = analyze_power(inventory, None, None)
    assert result.by_kind_kw == {"compute": 16.0, "nic": pytest.approx(0.1)}


def test_air_rack_warning(catalog):
    server = catalog.get("DGX-H100")
    inventory = Inventory((
        InventoryItem("DGX-H100", "server", "compute", 8, server, True, {"per_rack": 8},
                      ("cluster/su0",)),
    ))
    result = analyze_power(inventory, None, None)
    assert result.max_rack_kw == pytest.approx(81.6)
    codes = {d.code: d for d in result.diagnostics}
    assert codes["RACK_OVER_COOLING_LIMIT"].components == ("cluster/su0",)


def test_empty_inventory_and_json(catalog):
    empty = analyze_power(Inventory(()), 5.0, None)
    assert empty.it_kw == 0.0 and empty.pue == pytest.approx(1.4)
    full = analyze_power(fabric_1024(catalog), 30.0, 512)
    for result in (empty, full):
        text = json.dumps(result.to_json(), allow_nan=False)
        data = json.loads(text)
        for key in ("it_kw", "facility_kw", "pue", "by_kind_kw", "max_rack_kw"):
            assert key in data  # DESIGN.md evaluation JSON "power" contract

