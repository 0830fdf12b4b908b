"""Expert and naive support agents per domain, each materialisable as a valid submission."""
