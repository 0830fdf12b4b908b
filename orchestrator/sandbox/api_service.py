"""The customer API as a service container: public app on `api:8100` of the networks it joins, admin app
on a Unix socket in a host directory that only the orchestrator sees (no container network reaches it)."""

from __future__ import annotations

import importlib.util
import secrets
import shutil
import tempfile
import time
from pathlib import Path

from .admin_client import RemoteTenantRegistry
from .base import SandboxError
from .docker import ContainerSpec, Mount, create_container
from .engine import Session
from .networks import wait_for_line
from .service_container import ServiceContainer

ALIAS = "api"
PORT = 8100
_ADMIN_DIR = "/run/hypertau-admin"
_CODE_DIR = "/opt/hypertau"
SERVICE_PACKAGES = ("customer_apis",)  # host packages the service imports, mounted read-only


def package_dir(name: str) -> str:
    """Host directory of an importable package (editable or installed)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise SandboxError(f"cannot locate the {name} package to mount into the services container")
    return list(spec.submodule_search_locations)[0]


class ApiService(ServiceContainer):
    """Start / stop the API container; `registry` is its admin face, `public_url` what agents are given."""

    public_url = f"http://{ALIAS}:{PORT}"

    def __init__(self, client, session: Session, image: str, network: str):
        self._client = client
        self._session = session
        self._image = image
        self._network = network
        self._admin_dir = Path(tempfile.mkdtemp(prefix="hypertau-admin-"))
        self.container = None
        self.registry: RemoteTenantRegistry | None = None

    def start(self) -> ApiService:
        """Run the container and wait until both apps answer."""
        sockets = self._admin_dir / "sock"
        sockets.mkdir()
        sockets.chmod(0o777)  # the service runs as uid 1000 and creates its socket here
        token = secrets.token_urlsafe(24)
        mounts = [Mount(package_dir(name), f"{_CODE_DIR}/{name}") for name in SERVICE_PACKAGES]
        mounts.append(Mount(str(sockets), _ADMIN_DIR, read_only=False))
        spec = ContainerSpec(
            image=self._image, labels=self._session.labels("api"), name_prefix=self._session.prefix("api"),
            network=self._network, aliases=(ALIAS,), read_only=True, pids_limit=256, memory="2g",
            mounts=tuple(mounts), env={"HYPERTAU_ADMIN_TOKEN": token, "PYTHONPATH": _CODE_DIR, "HOME": "/tmp"},
        )
        command = ["python", "/opt/hypertau-services/serve_api.py", "--public-port", str(PORT),
                   "--admin-uds", f"{_ADMIN_DIR}/admin.sock"]
        self.container = create_container(self._client, spec, command)
        self.container.start()
        wait_for_line(self.container, "ready")
        self.registry = RemoteTenantRegistry(str(sockets / "admin.sock"), token)
        deadline = time.monotonic() + 10
        while not self.registry.healthy():
            if time.monotonic() > deadline:
                raise SandboxError("customer API container: the admin socket does not answer")
            time.sleep(0.05)
        return self

    def stop(self) -> None:
        """Remove the container and the admin socket directory."""
        if self.registry:
            self.registry.close()
        self.remove_container()
        shutil.rmtree(self._admin_dir, ignore_errors=True)
