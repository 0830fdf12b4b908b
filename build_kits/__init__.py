"""Task catalog, inherited workspaces and the kit assembler."""
