"""Kit services: what `hypertau-kit` in the developer sandbox calls (client, local tests, budget, submit).

They run on the host, outside the sandbox, reached through the relay with a build-scoped token; everything
secret (the client's facts, the gateway, the API's admin side) stays here.
"""

from .server import KitServer
from .service import KitServices

__all__ = ["KitServer", "KitServices"]
