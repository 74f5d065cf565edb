"""Atomic saves: whatever happens during a save (kill -9, full disk, power cut), the old file stays whole.

The new content goes to a temp file in the target's folder, is flushed and fsynced, takes the
target's permissions, replaces the target with ``os.replace`` and then the folder is fsynced so
that the rename itself survives a power cut. Details users notice:

* a symbolic link stays a link and the file it points to gets the new content (the temp file is
  made in the target's folder, where the rename is atomic);
* an existing file keeps its permission bits (and owner and group where we may set them); a new
  file gets 0o666 minus the umask, like any file the user creates (mkstemp's 0o600 would hide a
  shared project from the user's group);
* a file the user made read-only is not replaced;
* a device or pipe (``-o /dev/stdout``) is written in place; replacing it would swap the device
  node for a regular file;
* the temp name carries the writer's pid, so a temp left by a killed save is recognised and
  removed at the next save of the same file once its writer is gone (or it is older than
  ``STALE_TEMP_S``), and never while a live save may still rename it;
* the temp name fits the folder's NAME_MAX even when the target's own name leaves no room;
* every OSError becomes one ``ProjectFileError`` line naming the file and the reason.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import secrets
import stat
import time
from pathlib import Path

from core.errors import ProjectFileError
from core.processes import pid_alive

# A save writes its temp in milliseconds (even a 20,000-pixel PNG export takes seconds): a temp
# this old was abandoned whatever its pid says (the pid may have been reused since).
STALE_TEMP_S = 600.0
DEFAULT_NAME_MAX = 255  # POSIX NAME_MAX, in bytes; used where the folder cannot be asked
_RANDOM_HEX = 8  # random part of a temp name: concurrent saves of one file in one process differ
_PID_DIGITS = 10  # Windows pids reach 2**32
_HASH_HEX = 12  # stands for the cut-off tail of a long name, so two long names keep apart temps
# ".{key}.{pid}-{random}.tmp": the bytes a temp name adds around the key.
_TEMP_OVERHEAD = len("..-.tmp") + _PID_DIGITS + _RANDOM_HEX
_NEW_FILE_MODE = 0o666  # the kernel subtracts the umask, as for any file the user creates
_OPEN_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
               | getattr(os, "O_CLOEXEC", 0))
_REASONS = {
    errno.ENOSPC: "the disk is full",
    errno.EROFS: "the file system is read-only",
    errno.ENAMETOOLONG: "the file name is too long",
}
if hasattr(errno, "EDQUOT"):
    _REASONS[errno.EDQUOT] = "the disk quota is used up"
# fsync of a folder is refused by some file systems; the rename is then as durable as they allow.
_FOLDER_SYNC_UNSUPPORTED = {errno.EINVAL, errno.EBADF, getattr(errno, "ENOTSUP", errno.EINVAL)}


def atomic_write_bytes(path: str | Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a mix."""
    path = Path(path)
    existing = _stat_target(path)
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        _write_in_place(path, data)
        return
    target = Path(os.path.realpath(path))  # through symbolic links: the link stays, its target changes
    folder = target.parent
    name_max = _name_max(folder)
    name_bytes = len(os.fsencode(target.name))
    if name_bytes > name_max:
        raise ProjectFileError(
            f"{path}: cannot save (the file name is {name_bytes} bytes long; this folder allows {name_max})")
    key = _temp_key(target.name, name_max)
    _remove_stale_temps(folder, key)
    temp = folder / f".{key}.{os.getpid()}-{secrets.token_hex(_RANDOM_HEX // 2)}.tmp"
    try:
        fd = os.open(temp, _OPEN_FLAGS, _NEW_FILE_MODE)
    except OSError as exc:
        raise _error(path, exc, folder) from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if existing is not None:
            _copy_permissions(temp, existing)
        os.replace(temp, target)
    except BaseException as exc:
        try:
            os.unlink(temp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise _error(path, exc) from None
        raise
    _sync_folder(path, folder)


def atomic_write_text(path: str | Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def _temp_pattern(key: str) -> re.Pattern[str]:
    """Names of the temp files of saves to the file whose temp key is ``key``; group 1 is the pid."""
    return re.compile(rf"\.{re.escape(key)}\.(\d{{1,{_PID_DIGITS}}})-[0-9a-f]{{{_RANDOM_HEX}}}\.tmp")


def _remove_stale_temps(folder: Path, key: str) -> None:
    """Delete temps of this target left by saves that were killed (writer gone, or too old).

    Best effort: a temp we cannot inspect or delete is left alone; the save goes on."""
    prefix = f".{key}."
    pattern = _temp_pattern(key)
    now = time.time()
    try:
        entries = os.scandir(folder)
    except OSError:
        return
    with entries:
        for entry in entries:
            if not entry.name.startswith(prefix):
                continue
            match = pattern.fullmatch(entry.name)
            if match is None:
                continue
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            pid = int(match[1])
            # Our own pid may be another thread's save in progress: only age makes it stale.
            abandoned = pid != os.getpid() and not pid_alive(pid)
            if abandoned or now - info.st_mtime > STALE_TEMP_S:
                try:
                    os.unlink(entry.path)
                except OSError:
                    pass


def _temp_key(name: str, name_max: int) -> str:
    room = name_max - _TEMP_OVERHEAD
    if len(os.fsencode(name)) <= room:
        return name
    # A long name is cut and tagged with a hash of the whole name, so the temp stays within
    # NAME_MAX and still belongs to exactly one target.
    tag = "~" + hashlib.sha256(os.fsencode(name)).hexdigest()[:_HASH_HEX]
    head = name
    while len(os.fsencode(head + tag)) > room:
        head = head[:-1]
    return head + tag


def _name_max(folder: Path) -> int:
    try:
        value = os.pathconf(folder, "PC_NAME_MAX")
    except (AttributeError, ValueError, OSError):  # no pathconf (Windows), or no such folder yet
        return DEFAULT_NAME_MAX
    return value if value > 0 else DEFAULT_NAME_MAX


def _stat_target(path: Path) -> os.stat_result | None:
    """The status of what ``path`` names (through links), or None when nothing is there yet;
    refuses folders and files the user made read-only."""
    try:
        # Through links, but not via realpath: /dev/stdout -> /proc/self/fd/1 -> "pipe:[...]"
        # only resolves inside the kernel.
        existing = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise _error(path, exc, path.parent) from None
    if stat.S_ISDIR(existing.st_mode):
        raise ProjectFileError(f"{path}: cannot save (it is a folder)")
    if stat.S_ISREG(existing.st_mode) and not os.access(path, os.W_OK):
        raise ProjectFileError(f"{path}: cannot save (the file is read-only)")
    return existing


def _write_in_place(path: Path, data: bytes) -> None:
    try:
        with open(path, "wb") as handle:
            handle.write(data)
    except OSError as exc:
        raise _error(path, exc) from None


def _copy_permissions(temp: Path, existing: os.stat_result) -> None:
    if hasattr(os, "chown"):
        mine = os.stat(temp)
        if (mine.st_uid, mine.st_gid) != (existing.st_uid, existing.st_gid):
            try:
                os.chown(temp, existing.st_uid, existing.st_gid)
            except PermissionError:
                pass  # only root may give a file away; the user's own copy is still theirs
    # After chown, which clears set-id bits.
    os.chmod(temp, stat.S_IMODE(existing.st_mode))


def _sync_folder(path: Path, folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return  # the platform cannot open a folder (Windows): the rename is as durable as it allows
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno not in _FOLDER_SYNC_UNSUPPORTED:
            reason = _REASONS.get(exc.errno) or exc.strerror or str(exc)
            raise ProjectFileError(
                f"{path}: saved, but the folder could not be flushed to disk ({reason})") from None
    finally:
        os.close(fd)


def _error(path: Path, exc: OSError, folder: Path | None = None) -> ProjectFileError:
    """One line naming the file and the reason; ``folder`` when the folder is the problem."""
    code = exc.errno
    if folder is not None and code in (errno.EACCES, errno.EPERM):
        reason = f"permission denied in folder {folder}"
    elif folder is not None and code == errno.ENOENT and not os.path.isdir(folder):
        reason = f"folder {folder} does not exist"
    elif folder is not None and code == errno.ENOTDIR:
        reason = f"{folder} is not a folder"
    elif code in (errno.EACCES, errno.EPERM):
        reason = "permission denied"
    else:
        reason = _REASONS.get(code) or exc.strerror or str(exc)
    return ProjectFileError(f"{path}: cannot save ({reason})")
