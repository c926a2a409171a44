"""`python -m complex_edit` behaves like the `complex-edit` console script."""

import sys

from complex_edit.server.cli import main

sys.exit(main())
