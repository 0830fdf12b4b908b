"""Host services (the model gateway, the kit services) made reachable from a sandbox network by name.

The sandbox networks are internal bridges the host has no address on, so a sandbox cannot reach host ports.
A relay container on the network listens on `<alias>:<port>` and forwards each connection to a Unix socket
in a host directory that only it mounts; on the host, a bridge thread forwards that socket to the service's
loopback port. The sandbox reaches exactly these services, nothing else of the host.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from . import relay_proxy
from .docker import ContainerSpec, Mount, create_container
from .engine import Session
from .networks import wait_for_line
from .service_container import ServiceContainer

_SOCKETS = "/run/hypertau-relay"
_SCRIPT = "/opt/hypertau-relay/relay_proxy.py"


@dataclass(frozen=True)
class HostService:
    """A host service as sandboxes see it: `http://<alias>:<port>`, served on the host's `host_port`."""

    alias: str
    port: int
    host_port: int

    @property
    def url(self) -> str:
        return container_url(self.alias, self.port)


def container_url(alias: str, port: int) -> str:
    """The URL a sandbox uses for a relayed host service."""
    return f"http://{alias}:{port}"


class HostBridge:
    """Unix socket → host loopback port for each service, served by an asyncio loop in a daemon thread."""

    def __init__(self, directory: Path, services: list[HostService]):
        self.directory = directory
        self._routes = [(f"unix:{directory / f'{s.alias}.sock'}", f"tcp:127.0.0.1:{s.host_port}") for s in services]
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="hypertau-host-bridge", daemon=True)
        self._servers: list = []

    def start(self) -> HostBridge:
        self._thread.start()
        future = asyncio.run_coroutine_threadsafe(relay_proxy.listen(self._routes), self._loop)
        self._servers = future.result(timeout=10)
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(relay_proxy.shutdown(self._servers), self._loop).result(timeout=5)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5)
        self._loop.close()


class HostServiceRelay(ServiceContainer):
    """Context manager: the host bridge and the relay container on `network`, aliased as each service."""

    def __init__(self, client, session: Session, image: str, network: str, services: list[HostService]):
        self._client, self._session, self._image, self._network = client, session, image, network
        self.services = list(services)
        self._dir = Path(tempfile.mkdtemp(prefix="hypertau-relay-"))
        self._dir.chmod(0o755)  # the relay runs as uid 1000; the sockets themselves are 0666
        self._bridge = HostBridge(self._dir, self.services)
        self.container = None

    def start(self) -> HostServiceRelay:
        self._bridge.start()
        routes = [f"tcp:0.0.0.0:{s.port}=unix:{_SOCKETS}/{s.alias}.sock" for s in self.services]
        spec = ContainerSpec(
            image=self._image, labels=self._session.labels("relay"), name_prefix=self._session.prefix("relay"),
            network=self._network, aliases=tuple(s.alias for s in self.services), read_only=True, pids_limit=64,
            memory="128m", mounts=(Mount(relay_proxy.__file__, _SCRIPT), Mount(str(self._dir), _SOCKETS)),
            env={"HOME": "/tmp"})
        self.container = create_container(self._client, spec, ["python", _SCRIPT, *routes])
        self.container.start()
        wait_for_line(self.container, "ready")
        return self

    def stop(self) -> None:
        self.remove_container()
        self._bridge.stop()
        shutil.rmtree(self._dir, ignore_errors=True)
