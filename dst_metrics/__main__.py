"""``python -m dst_metrics``: the command line (see `dst_metrics.cli`)."""

import sys

from .cli import main

sys.exit(main())
