"""``python -m uner.cli``: the same as the ``uner`` command."""

from . import main

main()
