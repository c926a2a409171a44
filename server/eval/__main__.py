"""`python -m server.eval` runs `complex-edit eval`."""

import sys

from complex_edit.server.eval.cli import main

sys.exit(main())
