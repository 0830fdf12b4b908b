"""`hypertau-kit` inside the developer sandbox (placeholder): names the tools that a later release provides.

Self-contained on purpose: the developer image must not contain the hypertau distribution (held-out data).
"""

from __future__ import annotations

import sys

TOOLS = {
    "talk-to-client": "ask the client (the stakeholder) a question",
    "local-test": "run a sample conversation against the development API",
    "budget": "show the model credits spent and left",
    "submit": "seal the workspace as the submission",
}
VERSION = "0.0-placeholder"


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help", "help"):
        print("usage: hypertau-kit <tool> [args]\n\ntools:")
        for name, summary in TOOLS.items():
            print(f"  {name:16} {summary}")
        return 0
    if argv[0] == "--version":
        print(f"hypertau-kit {VERSION}")
        return 0
    if argv[0] in TOOLS:
        print(f"hypertau-kit: `{argv[0]}` is not available in this image yet", file=sys.stderr)
        return 3
    print(f"hypertau-kit: unknown tool {argv[0]!r} (try --help)", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
