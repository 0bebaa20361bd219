"""``python -m ruma.client.cli``: the ``ruma`` command line."""

from ruma.client.cli.main import main

raise SystemExit(main())
