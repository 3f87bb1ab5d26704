"""``python -m bandits.data {ensure,download,verify,list}`` (see ``bandits.data.cli``)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
