"""``python -m rrmap.cli``: the same as the ``rrmap`` command."""

import sys

from rrmap.cli import main

sys.exit(main())
