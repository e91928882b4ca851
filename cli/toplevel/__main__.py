import sys

from hwmovegen.cli import main

sys.exit(main())
