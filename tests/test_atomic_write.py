"""Saving: killed saves leave the old file whole and their temps go at the next save; permissions,
symbolic links, folder fsync, and one-line errors for every way creating the file can fail."""

import errno
import os
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.atomic_write import STALE_TEMP_S, atomic_write_bytes, atomic_write_text
from core.errors import ProjectFileError
from core.generators import FatTreeOptions, generate_fat_tree
from core.project import load_project, save_project

ROOT = Path(__file__).resolve().parent.parent
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
LONGEST_NAME = "é" * 125 + ".json"  # 255 bytes: no room left for a temp suffix
GENERATE = ["generate", "supernode", "--system", "GB200-NVL72", "--count", "2", "-o"]

# A save that hangs between writing its temp and renaming it, like a process killed mid-save.
KILLED_SAVE = """
import os, sys, time
from core.catalog import load_catalog
from core.generators import FatTreeOptions, generate_fat_tree
from core.project import save_project

def hang(fd):
    sys.stdout.write("writing\\n")
    sys.stdout.flush()
    time.sleep(600)

design = generate_fat_tree(FatTreeOptions(100_000, "DGX-H100", "SN5600"), load_catalog(include_user=False))
os.fsync = hang
save_project(design, sys.argv[1])
"""


def temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.fixture
def small(catalog):
    return generate_fat_tree(FatTreeOptions(1024, "DGX-H100", "QM9700"), catalog)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


@pytest.fixture
def sleeper():
    """A live process that is not us: its temps belong to a save still in progress."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield proc.pid
    proc.kill()
    proc.wait()


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# --- killed saves ----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["cluster.json", LONGEST_NAME])
def test_kill_9_mid_save_keeps_the_old_file_and_the_next_save_removes_the_temp(tmp_path, small, catalog, name):
    path = tmp_path / name
    save_project(small, path)
    before = path.read_bytes()
    child = subprocess.Popen([sys.executable, "-c", KILLED_SAVE, str(path)], cwd=ROOT,
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "writing\n"  # the new content is in the temp, not renamed yet
    finally:
        child.kill()
        child.wait(timeout=60)
        child.stdout.close()
    assert path.read_bytes() == before
    leftovers = temps(tmp_path)
    assert len(leftovers) == 1 and f".{child.pid}-" in leftovers[0]
    assert len(os.fsencode(leftovers[0])) <= 255

    save_project(small, path)
    assert temps(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]
    assert load_project(path, catalog).content_equal(small)


def test_only_abandoned_temps_of_the_same_file_are_removed(tmp_path, sleeper):
    path = tmp_path / "p.json"
    path.write_text("old")
    gone = dead_pid()
    names = {
        "dead writer": f".p.json.{gone}-0123abcd.tmp",
        "live writer": f".p.json.{sleeper}-0123abcd.tmp",
        "live writer, too old": f".p.json.{sleeper}-89abcdef.tmp",
        "this process": f".p.json.{os.getpid()}-0123abcd.tmp",
        "another file's": f".q.json.{gone}-0123abcd.tmp",
        "the user's own file": ".p.json.backup.tmp",
    }
    for name in names.values():
        (tmp_path / name).write_text("partial")
    hour_ago = time.time() - STALE_TEMP_S - 3600
    os.utime(tmp_path / names["live writer, too old"], (hour_ago, hour_ago))

    atomic_write_text(path, "new")
    assert path.read_text() == "new"
    kept = {label for label, name in names.items() if (tmp_path / name).exists()}
    assert kept == {"live writer", "this process", "another file's", "the user's own file"}


# --- permissions, links, durability ----------------------------------------------------------
@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o002, 0o664)])
def test_a_new_file_gets_the_users_umask_not_0600(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "new.json", "{}")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.json").stat().st_mode) == mode


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o664, 0o755])
def test_an_existing_file_keeps_its_mode(tmp_path, umask_022, mode):
    path = tmp_path / "p.json"
    path.write_text("old")
    path.chmod(mode)
    atomic_write_text(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert path.read_text() == "new"


@pytest.mark.skipif(not IS_ROOT, reason="only root may give a file to another user")
def test_an_existing_file_keeps_its_owner_when_root_saves_it(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("old")
    os.chown(path, 12345, 54321)
    path.chmod(0o666)  # still ours to write where root's DAC override is dropped
    atomic_write_text(path, "new")
    assert (path.stat().st_uid, path.stat().st_gid) == (12345, 54321)


def test_saving_through_a_symbolic_link_updates_its_target(tmp_path):
    (tmp_path / "projects").mkdir()
    (tmp_path / "links").mkdir()
    target = tmp_path / "projects" / "real.json"
    target.write_text("old")
    target.chmod(0o640)
    middle = tmp_path / "links" / "middle.json"
    middle.symlink_to(target)
    link = tmp_path / "links" / "current.json"
    link.symlink_to("middle.json")  # relative, and a link to a link

    atomic_write_text(link, "new")
    assert link.is_symlink() and middle.is_symlink()
    assert os.readlink(link) == "middle.json"
    assert target.read_text() == "new" and not target.is_symlink()
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in (tmp_path / "projects").iterdir()) == ["real.json"]
    assert sorted(p.name for p in (tmp_path / "links").iterdir()) == ["current.json", "middle.json"]


def test_a_dangling_link_creates_its_target(tmp_path):
    link = tmp_path / "p.json"
    link.symlink_to("real.json")
    atomic_write_text(link, "new")
    assert link.is_symlink() and (tmp_path / "real.json").read_text() == "new"


def test_the_folder_is_fsynced_after_the_rename(tmp_path, monkeypatch):
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append("fsync folder" if stat.S_ISDIR(os.fstat(fd).st_mode) else "fsync file")
        real_fsync(fd)

    def replace(src, dst):
        events.append("rename")
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    atomic_write_text(tmp_path / "p.json", "new")
    assert events == ["fsync file", "rename", "fsync folder"]


@pytest.mark.parametrize("code, outcome", [
    (errno.EINVAL, None),  # a file system that cannot fsync a folder: the rename is all it offers
    (errno.EIO, "saved, but the folder could not be flushed to disk"),
])
def test_a_folder_fsync_failure_is_quiet_only_where_unsupported(tmp_path, monkeypatch, code, outcome):
    real_fsync = os.fsync

    def fsync(fd):
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(code, os.strerror(code))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    path = tmp_path / "p.json"
    if outcome is None:
        atomic_write_text(path, "new")
    else:
        with pytest.raises(ProjectFileError, match=outcome):
            atomic_write_text(path, "new")
    assert path.read_text() == "new"  # the rename happened either way


def test_a_pipe_is_written_in_place_not_replaced(tmp_path):
    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    received = []
    # daemon: if the save replaced the pipe, the reader would wait forever for a writer
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()), daemon=True)
    reader.start()
    atomic_write_bytes(fifo, b"report")
    reader.join(timeout=30)
    assert received == [b"report"]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


@pytest.mark.skipif(not os.path.exists("/dev/stdout"), reason="no /dev/stdout on this platform")
def test_cli_output_to_dev_stdout_through_a_pipe(tmp_path):
    """/dev/stdout -> /proc/self/fd/1 -> "pipe:[...]": only the kernel resolves it."""
    done = subprocess.run([sys.executable, "-m", "designer.cli", *GENERATE, "/dev/stdout"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert '"format": "cluster-designer.project"' in done.stdout


# --- clean errors ----------------------------------------------------------------------------
@pytest.mark.parametrize("where, reason", [
    ("missing/p.json", "folder .*missing does not exist"),
    ("afile/p.json", "afile is not a folder"),
    ("a" * 256 + ".json", "file name is too long"),
    ("afolder", "it is a folder"),
])
def test_unusable_targets_are_one_line_errors(tmp_path, where, reason):
    (tmp_path / "afile").write_text("a file where a folder should be")
    (tmp_path / "afolder").mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(ProjectFileError, match=f"cannot save \\(.*{reason}") as info:
        atomic_write_text(tmp_path / where, "new")
    assert "\n" not in str(info.value) and str(tmp_path / where) in str(info.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_a_read_only_folder_is_a_clean_error(tmp_path, permissions_enforced):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        with pytest.raises(ProjectFileError, match="permission denied in folder"):
            atomic_write_text(folder / "p.json", "new")
    finally:
        folder.chmod(0o755)


@pytest.mark.parametrize("code, reason", [
    (errno.EROFS, "the file system is read-only"),
    (errno.EACCES, "permission denied in folder"),
    (errno.ENAMETOOLONG, "the file name is too long"),
])
def test_a_temp_file_that_cannot_be_created_is_a_clean_error(tmp_path, monkeypatch, code, reason):
    """Read-only mounts and denied folders, as the kernel reports them (root ignores chmod)."""
    path = tmp_path / "p.json"
    path.write_text("old")
    real_open = os.open

    def refuse_temps(name, flags, mode=0o777, **kwargs):
        if str(name).endswith(".tmp"):
            raise OSError(code, os.strerror(code), str(name))
        return real_open(name, flags, mode, **kwargs)

    monkeypatch.setattr(os, "open", refuse_temps)
    with pytest.raises(ProjectFileError, match=f"p.json: cannot save \\({reason}"):
        atomic_write_text(path, "new")
    assert path.read_text() == "old"


def test_a_full_disk_keeps_the_old_file_whole(tmp_path, monkeypatch):
    path = tmp_path / "p.json"
    path.write_text("old")
    real_fdopen = os.fdopen

    class FullDisk:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[: len(data) // 2])
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fdopen", lambda fd, mode: FullDisk(real_fdopen(fd, mode)))
    with pytest.raises(ProjectFileError, match="p.json: cannot save \\(the disk is full\\)"):
        atomic_write_text(path, "new content" * 1000)
    assert path.read_text() == "old"
    assert temps(tmp_path) == []


def test_a_read_only_file_is_not_replaced(tmp_path, monkeypatch):
    path = tmp_path / "p.json"
    path.write_text("old")
    path.chmod(0o444)
    if IS_ROOT:  # root may write anything: ask as a user would
        monkeypatch.setattr(os, "access", lambda p, mode: mode != os.W_OK)
    with pytest.raises(ProjectFileError, match="p.json: cannot save \\(the file is read-only\\)"):
        atomic_write_text(path, "new")
    assert path.read_text() == "old"


# --- any file name -----------------------------------------------------------------------------
FILE_NAMES = st.text(st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)),
                     min_size=1, max_size=255).filter(
    lambda n: n not in (".", "..") and len(os.fsencode(n)) <= 255)


@settings(max_examples=60)
@given(name=FILE_NAMES, first=st.binary(max_size=300), second=st.binary(max_size=300))
def test_any_valid_file_name_saves_twice_and_leaves_only_the_file(tmp_path_factory, name, first, second):
    folder = tmp_path_factory.mktemp("names")
    path = folder / name
    atomic_write_bytes(path, first)
    atomic_write_bytes(path, second)
    assert path.read_bytes() == second
    assert os.listdir(folder) == [name]


def test_cli_output_with_the_longest_file_name_is_written(tmp_path, capsys, catalog):
    """Before, the temp name ran past NAME_MAX and mkstemp's error escaped as a traceback."""
    from designer.cli import main

    out = tmp_path / ("x" * 250 + ".json")
    assert main([*GENERATE, str(out)]) == 0, capsys.readouterr().err
    assert load_project(out, catalog).name and os.listdir(tmp_path) == [out.name]


@pytest.mark.parametrize("output, reason", [
    ("x" * 251 + ".json", "file name is too long"),
    ("afile/out.json", "is not a folder"),
])
def test_cli_output_that_cannot_be_created_is_one_line_and_exit_2(tmp_path, capsys, output, reason):
    from designer.cli import main

    (tmp_path / "afile").write_text("a file where a folder should be")
    code = main([*GENERATE, str(tmp_path / output)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and reason in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]
