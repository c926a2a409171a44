"""`python -m server.eval` runs `complex-edit eval`."""

import sys

from server.eval.cli import main

sys.exit(main())
