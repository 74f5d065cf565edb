"""The per-user catalog file: found where documented, and when it cannot be read or is invalid,
left out with a one-line warning while the bundled catalog keeps working (CLI and library)."""

import json
from pathlib import Path

import pytest

import core.catalog as catalog_module
from core.catalog import USER_CATALOG_ENV, load_catalog
from core.catalog_spec import NicSpec, Price
from designer.cli import main
from core.errors import CatalogError


@pytest.fixture
def user_nic(catalog):
    """A valid user entry: a built-in NIC under a new id (valid whatever the field rules are)."""
    entry = catalog.get("ConnectX-7").to_json()
    entry["id"] = "Acme-NIC"
    return entry


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.delenv(USER_CATALOG_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def write(path: Path, entries) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"components": entries}), encoding="utf-8")
    return path


def assert_left_out(loaded, *words):
    assert len(loaded.warnings) == 1
    warning = loaded.warnings[0]
    assert warning.startswith("user catalog ignored: ") and "\n" not in warning
    for word in words:
        assert word in warning
    assert "ConnectX-7" in loaded and "H100-SXM5-80GB" in loaded and "Acme-NIC" not in loaded


def test_the_default_user_catalog_is_read(home, user_nic):
    write(home / ".config" / "cluster-designer" / "user-catalog.json", [user_nic])
    loaded = load_catalog()
    assert "Acme-NIC" in loaded and loaded.warnings == ()


@pytest.mark.parametrize("content, reason", [
    ('{"components": [{"id": "x",}]}', "invalid JSON at line 1"),
    ('{"parts": []}', "expected a list of entries"),
    (b"\xff\xfe garbage", "not a text (UTF-8)"),
])
def test_a_bad_user_catalog_is_left_out_with_a_warning(home, content, reason):
    path = home / ".config" / "cluster-designer" / "user-catalog.json"
    path.parent.mkdir(parents=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    assert_left_out(load_catalog(), str(path), reason)


def test_a_user_entry_clashing_with_a_built_in_is_left_out_with_a_warning(home, catalog):
    path = write(home / ".config" / "cluster-designer" / "user-catalog.json", [catalog.get("ConnectX-7").to_json()])
    assert_left_out(load_catalog(), str(path), "duplicate catalog id")


def test_a_folder_where_the_user_catalog_file_should_be(home):
    path = home / ".config" / "cluster-designer" / "user-catalog.json"
    path.mkdir(parents=True)
    assert_left_out(load_catalog(), str(path), "is a folder")


def test_a_file_where_the_config_folder_should_be_means_no_user_catalog(home):
    (home / ".config").write_text("not a folder")
    loaded = load_catalog()
    assert loaded.warnings == () and "ConnectX-7" in loaded


def test_an_unreadable_config_folder_is_a_warning(home, user_nic, permissions_enforced):
    write(home / ".config" / "cluster-designer" / "user-catalog.json", [user_nic])
    folder = home / ".config" / "cluster-designer"
    folder.chmod(0)
    try:
        assert_left_out(load_catalog(), "Permission denied")
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("kind", ["missing", "folder"])
def test_the_environment_naming_an_unusable_file_is_a_warning(tmp_path, monkeypatch, kind):
    path = tmp_path / "nowhere.json" if kind == "missing" else tmp_path
    monkeypatch.setenv(USER_CATALOG_ENV, str(path))
    assert_left_out(load_catalog(), str(path))


def test_an_explicit_extra_file_is_still_an_error(tmp_path):
    bad = tmp_path / "extra.json"
    bad.write_text("{oops")
    with pytest.raises(CatalogError, match="extra.json: invalid JSON"):
        load_catalog(extra_files=[bad])


@pytest.mark.parametrize("command", [["catalog", "--kind", "dpu"], ["generate", "supernode", "--system",
                                                                     "GB200-NVL72", "--count", "2"]])
def test_the_cli_warns_in_one_line_and_carries_on(tmp_path, monkeypatch, capsys, command):
    bad = tmp_path / "user.json"
    bad.write_text("{oops")
    monkeypatch.setenv(USER_CATALOG_ENV, str(bad))
    monkeypatch.setattr(catalog_module, "_DEFAULT", None)  # the process-wide catalog is read afresh
    out = tmp_path / "p.json"
    args = command + (["-o", str(out)] if command[0] == "generate" else [])
    assert main(args) == 0
    captured = capsys.readouterr()
    assert captured.err == f"cluster-designer: warning: user catalog ignored: {bad}: invalid JSON at line 1 " \
                           f"column 2: Expecting property name enclosed in double quotes\n"
    assert "BlueField-3" in captured.out or out.is_file()


def test_a_user_entry_with_the_retired_price_usd_is_left_out_saying_what_to_write(home, user_nic):
    # an early catalog format priced entries with price_usd, which was never read: a user file
    # that still has it is left out with the fix, instead of loading as silently unpriced
    entry = {**user_nic, "price_usd": 1500}
    entry.pop("price", None)
    path = write(home / ".config" / "cluster-designer" / "user-catalog.json", [entry])
    assert_left_out(load_catalog(), str(path), "'Acme-NIC'", "field 'price_usd' is retired",
                    '"price": {"usd": N')


def test_a_user_entry_loads_as_its_kinds_typed_spec(home, user_nic):
    user_nic["price"] = {"usd": 1500, "year": 2025, "evidence": "list", "source": "our quote"}
    write(home / ".config" / "cluster-designer" / "user-catalog.json", [user_nic])
    spec = load_catalog().get("Acme-NIC")
    assert isinstance(spec, NicSpec) and spec.origin.endswith("user-catalog.json")
    assert (spec.ports, spec.port_gbit_s) == (user_nic["ports"], user_nic["port_gbit_s"])
    assert spec.price == Price(usd=1500, year=2025, evidence="list", source="our quote")
    assert spec.to_json() == user_nic  # what `catalog --format json` shows is what was written
