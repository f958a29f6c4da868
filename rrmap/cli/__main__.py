"""``python -m rrmap.cli``: the same as the ``rrmap`` command."""

import sys

from rrmap.cli import main

if __name__ == "__main__":
    sys.exit(main())
