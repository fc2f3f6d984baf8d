"""`python -m benchlab` runs the command line."""

from benchlab.cli.main import main

raise SystemExit(main())
