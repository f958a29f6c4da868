"""What a command of ``rrmap`` imports: the command run in a fresh process, as a user runs it,
and the modules it had loaded when it ended."""

from __future__ import annotations

import subprocess
import sys

_CODE = (
    "import sys\n"
    "from rrmap.cli import main\n"
    "try: main(sys.argv[1:])\n"
    "except SystemExit: pass\n"
    "print('MODULES:' + ','.join(sorted(sys.modules)))\n"
)


def modules_loaded(*args: str) -> tuple[list[str], subprocess.CompletedProcess]:
    """The modules ``rrmap *args`` had loaded when it ended, and the finished process (its
    standard output and error, for the messages of a failed assertion)."""
    res = subprocess.run(
        [sys.executable, "-c", _CODE, *args], capture_output=True, text=True, check=True
    )
    last = res.stdout.strip().splitlines()[-1]
    assert last.startswith("MODULES:"), res.stdout[-500:] + res.stderr[-500:]
    return last.removeprefix("MODULES:").split(","), res
