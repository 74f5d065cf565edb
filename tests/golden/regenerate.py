"""Rewrite tests/golden/data/ from today's code: ``python -m tests.golden.regenerate``."""

import os
import sys
import tempfile
from pathlib import Path

from tests.golden.cases import DATA, cases, produce, relative


def main() -> int:
    os.environ.pop("CLUSTER_DESIGNER_USER_CATALOG", None)
    DATA.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, args in cases().items():
            out = Path(tmp) / name
            produce(args, out)
            (DATA / name).write_text(relative(out.read_text()))
            print(name, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
