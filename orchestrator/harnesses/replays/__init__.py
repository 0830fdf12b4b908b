"""Replay scripts of scripted developers (data): `--developer-model replay/<name>`."""
