"""Where a build or an evaluation runs: `local` (plain processes, in-process API) or `docker` (images,
the API in a service container, internal networks, and a sweep of everything labelled with the session)."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..workspace import SANDBOX_WORKSPACE
from . import engine
from .api_service import ALIAS, ApiService
from .base import Sandbox, SandboxError
from .docker import ContainerSpec, DockerSandbox, Mount, Reaper
from .engine import Session
from .local import LocalSandbox
from .networks import internal_network, route_holder

KIT = "/kit"
AGENT_ENV = {"HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
             "PYTHONUNBUFFERED": "1"}


@dataclass
class EvalEnvironment:
    """What the episode runner needs: a tenant registry, the URL agents see, a sandbox per conversation."""

    registry: Any
    public_url: str
    sandbox_factory: Callable[[], Sandbox]
    images: dict[str, str] = field(default_factory=dict)


@dataclass
class DeveloperEnvironment:
    """The developer's sandbox (workspace at /workspace, kit at /kit) and its wall-clock deadline."""

    sandbox: Sandbox
    deadline: float  # time.monotonic() after which the developer's time is up
    env: dict[str, str] = field(default_factory=dict)
    images: dict[str, str] = field(default_factory=dict)


def _images(names: list[str]) -> dict[str, str]:
    from ..images import resolve_images  # images import the sandbox package: resolve lazily

    return resolve_images(names)


def agent_spec(image: str, session: Session) -> ContainerSpec:
    """The sealed agent: read-only root, no capabilities, no new privileges, uid 1000, tmpfs /tmp."""
    return ContainerSpec(image=image, labels=session.labels("agent"), name_prefix=session.prefix("agent"),
                         read_only=True, pids_limit=128, memory="1g", cpus=1.0,
                         tmpfs={"/tmp": "rw,nosuid,nodev,size=128m,mode=1777"}, env=AGENT_ENV)


@contextlib.contextmanager
def _sigint_held() -> Iterator[None]:
    """Hold Ctrl-C until the block is done (a second Ctrl-C must not cut the cleanup short), then raise it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list = []
    previous = signal.signal(signal.SIGINT, lambda *args: caught.append(args))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            raise KeyboardInterrupt


@contextlib.contextmanager
def _docker_session(run_id: str) -> Iterator[tuple[Session, Any]]:
    """A labelled session and an engine client; on any exit (error, Ctrl-C) everything labelled is swept."""
    session = Session(run_id)
    client = engine.client()
    try:
        yield session, client
    finally:
        with _sigint_held():
            try:
                session.sweep()
            finally:
                client.close()


@contextlib.contextmanager
def evaluation_environment(kind: str, run_id: str) -> Iterator[EvalEnvironment]:
    """The customer API and a per-conversation sandbox factory for `kind` (local | docker)."""
    if kind == "local":
        from customer_apis.server import ApiServer
        from customer_apis.tenancy import TenantRegistry

        registry = TenantRegistry()
        with ApiServer(registry) as api:
            yield EvalEnvironment(registry, api.public_url, LocalSandbox)
        return
    _check_kind(kind)
    images = _images(["agent", "services"])
    with _docker_session(run_id) as (session, client):
        hub = internal_network(client, session, "services")
        with ApiService(client, session, images["services"], hub.name) as api:
            # Hook for the model gateway: one more (container id, alias) here joins every conversation.
            services = [(api.container.id, ALIAS)]

            def conversation_network(sandbox_client):
                """Its own internal network: that conversation's agent, the API (and later the gateway)."""
                network = internal_network(sandbox_client, session, "conversation")
                for container_id, alias in services:
                    network.connect(container_id, aliases=[alias])
                return network

            reaper = Reaper()

            def factory() -> Sandbox:
                return DockerSandbox(agent_spec(images["agent"], session), own_network=conversation_network,
                                     reaper=reaper)

            try:
                yield EvalEnvironment(api.registry, api.public_url, factory, images)
            finally:
                reaper.close()


@contextlib.contextmanager
def developer_environment(kind: str, task, kit_dir: Path, run_id: str) -> Iterator[DeveloperEnvironment]:
    """The developer sandbox for building `task`: kit read-only at /kit, services reachable by name,
    the task's cpu / memory / wall-clock limits, no route anywhere else."""
    limit_s = int(task.sandbox.time_limit_minutes * 60)
    if kind == "local":
        with LocalSandbox() as box:
            yield DeveloperEnvironment(box, time.monotonic() + limit_s)
        return
    _check_kind(kind)
    images = _images(["developer", "services"])
    with _docker_session(run_id) as (session, client):
        network = internal_network(client, session, "build")
        with ApiService(client, session, images["services"], network.name) as api:
            tenant = api.registry.create(task.domain, seed=task.dev_seed)
            env = {"HYPERTAU_API_URL": f"{api.public_url}/t/{tenant.token}", "HYPERTAU_KIT": KIT}
            holder = route_holder(client, session, images["services"], network.name)
            spec = ContainerSpec(
                image=images["developer"], labels=session.labels("developer"),
                name_prefix=session.prefix("developer"), network=f"container:{holder.id}",
                memory=task.sandbox.memory, cpus=task.sandbox.cpus, pids_limit=1024,
                mounts=(Mount(str(Path(kit_dir).resolve()), KIT, read_only=True),),
                env={**env, "HOME": "/home/dev"}, working_dir=SANDBOX_WORKSPACE, lifetime_s=limit_s,
                tmpfs={},
            )
            with DockerSandbox(spec, client=engine.client()) as box:
                yield DeveloperEnvironment(box, time.monotonic() + limit_s, env, images)


def _check_kind(kind: str) -> None:
    if kind != "docker":
        raise SandboxError(f"unknown sandbox backend {kind!r} (available: docker, local)")
