import sys

from todocli.cli import main

sys.exit(main())
