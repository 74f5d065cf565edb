"""``python -m designer.cli``: the ``cluster-designer`` command."""

from designer.cli import main

raise SystemExit(main())
