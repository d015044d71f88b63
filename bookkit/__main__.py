"""`python -m bookkit COMMAND`: see `bookkit/cli/` (one module per command)."""
import sys

from bookkit.cli import main

if __name__ == "__main__":
    sys.exit(main())
