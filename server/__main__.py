"""`python -m server` behaves like the `complex-edit` console script."""

import sys

from server.cli import main

sys.exit(main())
