"""The metered model gateway (DESIGN §3.4): three wires, scoped tokens, a JSONL ledger, litellm routing.

Importing this package never imports litellm; only a model call does (see `llm.py`).
"""

from .errors import GatewayError
from .ledger import Ledger
from .routing import Route, RoutingTable
from .server import GatewayServer, Seat
from .tokens import SEATS, TokenScope, TokenStore

__all__ = ["SEATS", "GatewayError", "GatewayServer", "Ledger", "Route", "RoutingTable", "Seat", "TokenScope",
           "TokenStore"]
