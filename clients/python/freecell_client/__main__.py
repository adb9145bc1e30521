"""`python -m freecell_client`: the `freecell` command."""

import sys

from freecell_client.cli import main

sys.exit(main())
