"""``python -m claimcheck.cli``: the same entry point as the ``claimcheck`` script."""

import sys

from claimcheck.cli.main import main

sys.exit(main())
