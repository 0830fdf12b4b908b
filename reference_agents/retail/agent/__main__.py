"""Entry point: `python -m agent --mode expert|naive`."""

from .loop import main

main()
