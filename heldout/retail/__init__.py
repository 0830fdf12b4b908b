"""heldout/retail package."""
