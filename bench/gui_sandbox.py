"""Imported first by the GUI bench and screenshot scripts: Qt offscreen, and the app's settings,
recent files and recovery drafts in a temporary folder (removed at exit), so a run neither
reads nor changes the user's own."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
SANDBOX = tempfile.mkdtemp(prefix="cluster-designer-bench-")
os.environ["XDG_CONFIG_HOME"] = os.path.join(SANDBOX, "config")
os.environ["XDG_DATA_HOME"] = os.path.join(SANDBOX, "data")
atexit.register(shutil.rmtree, SANDBOX, ignore_errors=True)
