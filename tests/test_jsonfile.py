"""The one JSON reader: every unreadable file is a one-line error naming the file and the place."""

import json
import os

import pytest

from core.errors import ProjectFileError, WorkloadError
from core.jsonfile import read_json
from core.limits import MAX_FILE_BYTES
from core.project import load_project
from core.workload import load_workload

PROJECT = {"format": "cluster-designer.project", "version": 1, "name": "café ✓", "design": {}}


def _read(tmp_path, data: bytes):
    path = tmp_path / "p.json"
    path.write_bytes(data)
    with pytest.raises(ProjectFileError) as info:
        read_json(path, ProjectFileError, "project")
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


def test_a_utf8_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(PROJECT, ensure_ascii=False).encode())
    assert load_project(path).name == "café ✓"


@pytest.mark.parametrize("encoding,looks", [
    ("utf-16", "UTF-16 (byte-order mark at byte 0)"),
    ("utf-16-le", "UTF-16 (zero byte at byte 1)"),
    ("utf-16-be", "UTF-16 (zero byte at byte 0)"),
    ("utf-32", "UTF-32 (byte-order mark at byte 0)"),
])
def test_utf16_and_utf32_files_are_told_to_be_saved_as_utf8(tmp_path, encoding, looks):
    message = _read(tmp_path, json.dumps(PROJECT).encode(encoding))
    assert f"not a text (UTF-8) project file: it looks {looks}; save it as UTF-8 JSON" in message


def test_an_invalid_utf8_byte_is_located(tmp_path):
    message = _read(tmp_path, b'{\n  "name": "caf\xe9"}')
    assert message.endswith("invalid byte 0xe9 at line 2 column 15 (byte 16)")


def test_a_lone_surrogate_escape_is_located(tmp_path):
    # json.loads accepts it, but the string cannot be printed, saved or drawn
    message = _read(tmp_path, b'{\n "name": "x\\ud800y"}')
    assert "invalid text at line 2 column 12: \\ud800 is half of a UTF-16 surrogate pair" in message


def test_surrogate_pairs_and_escaped_backslashes_are_fine(tmp_path):
    path = tmp_path / "ok.json"
    path.write_bytes(b'{"emoji": "\\ud83d\\ude00", "text": "\\\\ud800"}')
    assert read_json(path, ProjectFileError, "project") == {"emoji": "😀", "text": "\\ud800"}


def test_an_integer_past_pythons_digit_limit_is_located(tmp_path):
    message = _read(tmp_path, b'{\n "count": ' + b"9" * 5000 + b"}")
    assert "number too long at line 2 column 11: integers have at most 4,300 digits" in message


@pytest.mark.parametrize("opener,closer", [(b"[", b"]"), (b'{"a":', b"}")])
def test_json_nested_100k_deep_is_located_not_a_recursion_error(tmp_path, opener, closer):
    message = _read(tmp_path, opener * 100_000 + b"1" + closer * 100_000)
    assert "JSON nested too deeply at line 1 column" in message


def test_a_file_above_the_size_limit_is_refused_before_reading(tmp_path):
    path = tmp_path / "huge.json"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)  # sparse: nothing is written, nothing must be read
    with pytest.raises(ProjectFileError, match=r"huge\.json: 512 MiB is too large for a project file "
                                               r"\(at most 512 MiB, limit in core/limits\.py\)"):
        load_project(path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused_instead_of_read_forever():
    with pytest.raises(WorkloadError, match="/dev/zero: not a regular file"):
        load_workload("/dev/zero")


def test_a_folder_is_refused(tmp_path):
    with pytest.raises(ProjectFileError, match="is a folder"):
        load_project(tmp_path)
