"""Assumption bounds declared as field metadata, enforced by core.settings with path-naming errors."""

import dataclasses
from dataclasses import dataclass, field

import pytest

from core.analysis.power import PowerAssumptions
from core.analysis.reliability import ReliabilityAssumptions
from core.assumptions import Assumptions, assumptions_from_dict, assumptions_to_dict
from core.errors import DesignError, ProjectFileError
from core.settings import (
    BOUND_KEYS, check_bounds, check_setting, describe_range, has_bounds, setting_bounds, settings_from_dict,
    settings_to_dict,
)
from core.topology import NetworkAssumptions

BOUNDED = (NetworkAssumptions, PowerAssumptions, ReliabilityAssumptions)


@dataclass(frozen=True)
class _Plain:
    """Fields without metadata: type and sign only."""

    ratio: float = 0.5
    count: int = 3
    sizes: tuple[float, ...] = (1.0, 2.0)
    table: dict[str, float] = field(default_factory=dict)
    label: str = "x"


@dataclass(frozen=True)
class _Bounded:
    share: float = field(default=0.5, metadata={"min": 0.0, "max": 1.0, "unit": "fraction"})
    level: float | None = field(default=None, metadata={"min": 1.0, "max": 3.0})
    sizes: tuple[float, ...] = field(default=(1.0,), metadata={"min": 0.0, "min_exclusive": True, "unit": "GB"})
    table: dict[str, float] = field(default_factory=dict, metadata={"max": 10.0})
    mode: str = field(default="a", metadata={"choices": ("a", "b")})


def _load(raw):
    return assumptions_from_dict(raw, "$.assumptions")


# --- bounds in project files ---------------------------------------------------------------
def test_pue_below_one_names_the_path_and_the_range():
    with pytest.raises(ProjectFileError) as info:
        _load({"power": {"pue": 0.9}})
    assert str(info.value) == "$.assumptions.power.pue: 0.9 is below the minimum 1.0 (allowed 1.0 to 3.0)"


@pytest.mark.parametrize("raw, message", [
    ({"power": {"pue": 3.5}}, "$.assumptions.power.pue: 3.5 is above the maximum 3.0 (allowed 1.0 to 3.0)"),
    ({"power": {"pue_air": 0.5}}, "$.assumptions.power.pue_air: 0.5 is below the minimum 1.0"),
    ({"power": {"pue_liquid": 14}}, "$.assumptions.power.pue_liquid: 14 is above the maximum 3.0"),
    ({"power": {"typical_fraction": 1.2}}, "$.assumptions.power.typical_fraction: 1.2 is above the maximum 1.0"),
    ({"power": {"typical_fraction": 0}}, "$.assumptions.power.typical_fraction: 0 must be above 0.0"),
    ({"power": {"switches_per_rack": 0}},
     "$.assumptions.power.switches_per_rack: 0 is below the minimum 1 (allowed 1 or more per rack)"),
    ({"power": {"electricity_usd_per_kwh": -0.1}}, "$.assumptions.power.electricity_usd_per_kwh: -0.1 is below"),
    ({"network": {"nic_efficiency": 0.0}},
     "$.assumptions.network.nic_efficiency: 0.0 must be above 0.0 (allowed above 0.0 up to 1.0)"),
    ({"network": {"scale_up_efficiency": 1.01}}, "$.assumptions.network.scale_up_efficiency: 1.01 is above"),
    ({"network": {"nic_latency_us": -1}},
     "$.assumptions.network.nic_latency_us: -1 is below the minimum 0.0 (allowed 0.0 µs or more)"),
    ({"network": {"busbw_message_bytes": 0}}, "$.assumptions.network.busbw_message_bytes: 0 must be above 0.0"),
    ({"reliability": {"checkpoint_mode": "fast"}},
     '$.assumptions.reliability.checkpoint_mode: "fast" is not one of "async", "sync"'),
    ({"reliability": {"spare_fraction": 1.5}}, "$.assumptions.reliability.spare_fraction: 1.5 is above the maximum"),
    ({"reliability": {"spare_target": 1.0}},
     "$.assumptions.reliability.spare_target: 1.0 must be below 1.0 (allowed 0.0 to below 1.0)"),
    ({"reliability": {"storage_write_efficiency": 0}}, "$.assumptions.reliability.storage_write_efficiency: 0 must"),
    ({"reliability": {"detection_min": -2}}, "$.assumptions.reliability.detection_min: -2 is below the minimum 0.0"),
    ({"reliability": {"rate_overrides": {"DGX-H100": 1.0, "QM9700": -1}}},
     "$.assumptions.reliability.rate_overrides.QM9700: -1 is below the minimum 0.0"),
])
def test_out_of_bounds_values_give_one_line_naming_the_path(raw, message):
    with pytest.raises(ProjectFileError) as info:
        _load(raw)
    text = str(info.value)
    assert text.startswith(message), text
    assert "\n" not in text


@pytest.mark.parametrize("raw", [
    {"power": {"pue": None}},
    {"power": {"pue": 1.0, "pue_air": 3.0, "pue_liquid": 1}},
    {"power": {"typical_fraction": 1.0, "switches_per_rack": 1, "electricity_usd_per_kwh": 0}},
    {"network": {"nic_efficiency": 1.0, "scale_up_efficiency": 0.001, "nic_latency_us": 0}},
    {"reliability": {"checkpoint_mode": "sync", "spare_fraction": 0, "spare_target": 0.0}},
    {"reliability": {"spare_fraction": 1.0, "spare_target": 0.999999, "rate_overrides": {"X": 0}}},
])
def test_values_at_the_bounds_load(raw):
    loaded = _load(raw)
    for section, values in raw.items():
        for name, value in values.items():
            assert getattr(getattr(loaded, section), name) == value


def test_types_are_still_checked_first():
    with pytest.raises(ProjectFileError, match=r"^\$\.assumptions\.power\.pue: invalid value 'high' \(expected a number"):
        _load({"power": {"pue": "high"}})
    with pytest.raises(ProjectFileError, match=r"switches_per_rack: invalid value 2\.5 \(expected a whole number\)"):
        _load({"power": {"switches_per_rack": 2.5}})
    with pytest.raises(ProjectFileError, match=r"checkpoint_mode: invalid value 1"):
        _load({"reliability": {"checkpoint_mode": 1}})


# --- fields without metadata ---------------------------------------------------------------
def test_fields_without_metadata_accept_non_negative_values_up_to_the_default_maximum():
    raw = {"ratio": 7.5, "count": 10**7, "sizes": [0.0, 1e12], "table": {"a": 123.0}, "label": "anything"}
    loaded = settings_from_dict(_Plain, raw, "$.x")
    assert loaded == _Plain(7.5, 10**7, (0.0, 1e12), {"a": 123.0}, "anything")
    assert not any(has_bounds(_Plain, f.name) for f in dataclasses.fields(_Plain))
    assert check_setting(_Plain, "ratio", 1e12) == 1e12


@pytest.mark.parametrize("raw, message", [
    # beyond these a number is a typo and overflows the analyses; the message states the bound
    ({"sizes": [0.0, 1e30]}, r"^\$\.x\.sizes\[1\]: 1e\+30 is above 1e\+12, the most any assumption"),
    ({"count": 10**9}, r"^\$\.x\.count: 1000000000 is above 20,000,000"),
    ({"ratio": float("nan")}, r"^\$\.x\.ratio: expected a finite number, got nan"),
    ({"table": {"a": float("inf")}}, r"^\$\.x\.table\.a: expected a finite number, got inf"),
    ({"sizes": [1.0] * 10_001}, r"^\$\.x\.sizes: 10,001 entries; at most 10,000"),
])
def test_fields_without_metadata_refuse_non_finite_and_huge_values(raw, message):
    with pytest.raises(ProjectFileError, match=message):
        settings_from_dict(_Plain, raw, "$.x")


@pytest.mark.parametrize("raw, path", [
    ({"ratio": -0.1}, "$.x.ratio"),
    ({"count": -1}, "$.x.count"),
    ({"sizes": [1.0, -2.0]}, r"$.x.sizes[1]"),
    ({"table": {"k": -1.0}}, "$.x.table.k"),
])
def test_fields_without_metadata_still_reject_negatives(raw, path):
    with pytest.raises(ProjectFileError) as info:
        settings_from_dict(_Plain, raw, "$.x")
    assert str(info.value) == f"{path}: must not be negative"


def test_unbounded_fields_of_the_real_sections_accept_large_values():
    # A field of a bounded section without a range (only a minimum) takes any large value.
    loaded = _load({"power": {"air_rack_limit_kw": 1e6}, "reliability": {"chassis_multiplier": 1e4}})
    assert loaded.power.air_rack_limit_kw == 1e6 and loaded.reliability.chassis_multiplier == 1e4
    # include_spare_wait has no metadata: type only.
    assert _load({"reliability": {"include_spare_wait": True}}).reliability.include_spare_wait is True


# --- check_setting / check_bounds (shared with the GUI) ------------------------------------
def test_check_setting_returns_the_stored_form_and_names_where():
    assert check_setting(PowerAssumptions, "pue", 1.2) == 1.2
    assert check_setting(PowerAssumptions, "pue", None) is None
    assert check_setting(_Bounded, "sizes", [1.0, 2.0]) == (1.0, 2.0)
    with pytest.raises(ProjectFileError, match=r"^pue: 0\.9 is below the minimum 1\.0"):
        check_setting(PowerAssumptions, "pue", 0.9)
    with pytest.raises(DesignError, match=r"^PUE: 0\.9 is below the minimum 1\.0 \(allowed 1\.0 to 3\.0\)$"):
        check_setting(PowerAssumptions, "pue", 0.9, where="PUE")
    with pytest.raises(ProjectFileError, match=r"^nonsense: unknown assumption"):
        check_setting(PowerAssumptions, "nonsense", 1.0)
    with pytest.raises(ProjectFileError, match=r"^Mode: \"c\" is not one of \"a\", \"b\""):
        check_setting(_Bounded, "mode", "c", where="Mode")


def test_check_setting_agrees_with_the_loader():
    for cls in BOUNDED:
        for f in dataclasses.fields(cls):
            for value in (-1.0, 0.0, 0.5, 1.0, 2.0, 1e9):
                try:
                    settings_from_dict(cls, {f.name: value}, "p")
                    loaded_ok = True
                except ProjectFileError:
                    loaded_ok = False
                try:
                    check_setting(cls, f.name, value)
                    checked_ok = True
                except ProjectFileError:
                    checked_ok = False
                assert loaded_ok == checked_ok, (cls.__name__, f.name, value)


def test_bounds_apply_to_every_number_in_lists_and_dicts():
    with pytest.raises(ProjectFileError, match=r"^\$\.b\.sizes\[1\]: 0\.0 must be above 0\.0"):
        settings_from_dict(_Bounded, {"sizes": [1.0, 0.0]}, "$.b")
    with pytest.raises(ProjectFileError, match=r"^\$\.b\.table\.big: 11\.0 is above the maximum 10\.0"):
        settings_from_dict(_Bounded, {"table": {"ok": 1.0, "big": 11.0}}, "$.b")
    # A field with a maximum but no minimum keeps the sign rule.
    with pytest.raises(ProjectFileError, match="must not be negative"):
        settings_from_dict(_Bounded, {"table": {"neg": -1.0}}, "$.b")
    check_bounds([0.5, 1.0], {"min": 0.0, "max": 1.0}, "x")
    check_bounds(None, {"min": 1.0}, "x")


def test_describe_range():
    assert describe_range({"min": 1.0, "max": 3.0}) == "1.0 to 3.0"
    assert describe_range({"min": 0.0, "min_exclusive": True, "max": 1.0, "unit": "fraction"}) == "above 0.0 up to 1.0"
    assert describe_range({"min": 0.0, "max": 1.0, "max_exclusive": True}) == "0.0 to below 1.0"
    assert describe_range({"min": 0.0, "unit": "µs"}) == "0.0 µs or more"
    assert describe_range({"min": 1, "unit": "per rack"}) == "1 or more per rack"
    assert describe_range({"max": 10.0}) == "up to 10.0"
    assert describe_range({"choices": ("async", "sync")}) == 'one of "async", "sync"'
    assert describe_range({}) == ""


# --- the metadata itself -------------------------------------------------------------------
def test_metadata_uses_known_keys_and_defaults_are_within_bounds():
    for cls in BOUNDED:
        default = cls()
        for f in dataclasses.fields(cls):
            assert set(f.metadata) <= set(BOUND_KEYS), f"{cls.__name__}.{f.name}: {set(f.metadata)}"
            bounds = setting_bounds(cls, f.name)
            if "min" in bounds and "max" in bounds:
                assert bounds["min"] < bounds["max"]
            if "choices" in bounds:
                assert getattr(default, f.name) in bounds["choices"]
            check_setting(cls, f.name, getattr(default, f.name), where=f"{cls.__name__}.{f.name}")


def test_every_non_boolean_field_of_the_bounded_sections_declares_bounds():
    for cls in BOUNDED:
        for f in dataclasses.fields(cls):
            if isinstance(getattr(cls(), f.name), bool):
                continue
            assert has_bounds(cls, f.name), f"{cls.__name__}.{f.name} has no bounds"


def test_pue_range_brackets_the_reference_figures():
    lo, hi = setting_bounds(PowerAssumptions, "pue")["min"], setting_bounds(PowerAssumptions, "pue")["max"]
    # hardware.md §8: Meta Luleå ~1.07 ... air-cooled colocation up to 1.8; Uptime average 1.56.
    for figure in (1.07, 1.1, 1.15, 1.4, 1.56, 1.8):
        assert lo <= figure <= hi
    assert lo == 1.0  # facility power / IT power cannot be below 1


# --- round trip --------------------------------------------------------------------------
def test_round_trip_is_unchanged():
    assert assumptions_to_dict(Assumptions()) == {}
    assert assumptions_from_dict({}) == Assumptions()
    changed = Assumptions(
        network=NetworkAssumptions(nic_latency_us=0.7, spectral_bisection_max_units=0),
        power=PowerAssumptions(pue=1.0, typical_fraction=1.0, switches_per_rack=1),
        reliability=ReliabilityAssumptions(checkpoint_mode="sync", spare_target=0.5,
                                           rate_overrides={"DGX-H100": 2.0}),
    )
    raw = assumptions_to_dict(changed)
    assert raw == {
        "network": {"nic_latency_us": 0.7, "spectral_bisection_max_units": 0},
        "power": {"pue": 1.0, "typical_fraction": 1.0, "switches_per_rack": 1},
        "reliability": {"checkpoint_mode": "sync", "spare_target": 0.5, "rate_overrides": {"DGX-H100": 2.0}},
    }
    assert assumptions_from_dict(raw) == changed
    full = settings_to_dict(changed)
    assert settings_from_dict(Assumptions, full, "$") == changed
    for section in ("network", "power", "reliability", "performance"):
        cls = type(getattr(Assumptions(), section))
        assert settings_from_dict(cls, settings_to_dict(cls()), "x") == cls()


def test_bounds_do_not_constrain_code_that_builds_assumptions_directly():
    # Only user input (files, GUI) is validated; analyses may still be handed any value.
    assert PowerAssumptions(pue=0.5).pue == 0.5


@pytest.mark.parametrize("raw, message", [
    # a table's columns pair up (a mismatch was an IndexError in the performance model)
    ({"gemm_efficiency": [0.5]}, r"^\$\.a\.performance\.gemm_efficiency: 1 entries, but "
                                 r"gemm_efficiency_gflop has 4; they pair up one to one$"),
    ({"gemm_efficiency_gflop": [], "gemm_efficiency": []},
     r"^\$\.a\.performance\.gemm_efficiency_gflop: 0 entries; at least 1 needed$"),
])
def test_paired_lists_are_checked_together(raw, message):
    with pytest.raises(ProjectFileError, match=message):
        assumptions_from_dict({"performance": raw}, "$.a")
