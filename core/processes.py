"""Whether a process id still names a running process (for files a crashed process left behind)."""

from __future__ import annotations

import os


def pid_alive(pid: int) -> bool:
    """True if ``pid`` may be running. Where we cannot tell, the answer is True: callers use it to
    decide whether a leftover file is abandoned, and a live owner must never lose its file."""
    if pid <= 0:
        return False
    if os.name != "posix":
        # On Windows os.kill(pid, 0) sends CTRL_C_EVENT instead of probing: never call it there.
        return True
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # OverflowError: no pid that large can exist
        return False
    except OSError:
        return True  # e.g. EPERM: the process exists but belongs to another user
    return True
