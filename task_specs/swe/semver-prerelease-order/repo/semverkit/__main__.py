import sys

from semverkit.cli import main

sys.exit(main())
