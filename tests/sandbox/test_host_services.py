"""Host services reached from a sandbox network: the byte relay (host side) and, in docker, by alias only."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from orchestrator.sandbox.host_services import HostBridge, HostService
from orchestrator.sandbox.relay_proxy import listen, shutdown


def _http_service() -> tuple[int, object]:
    """A tiny streaming HTTP service on a loopback port (the shape of the gateway's SSE answers)."""
    from starlette.applications import Starlette
    from starlette.responses import StreamingResponse
    from starlette.routing import Route

    from customer_apis.server import BackgroundUvicorn

    async def stream(request):
        async def chunks():
            for i in range(3):
                yield f"data: {i}\n\n"
                await asyncio.sleep(0.01)
        return StreamingResponse(chunks(), media_type="text/event-stream")

    server = BackgroundUvicorn(Starlette(routes=[Route("/s", stream, methods=["POST"])]), "127.0.0.1", 0)
    server.start()
    return server.port, server


def test_bridge_and_relay_carry_a_streamed_answer(tmp_path):
    """Sandbox side (TCP → Unix socket) and host side (Unix socket → loopback port) chained, as in docker."""
    port, server = _http_service()
    bridge = HostBridge(tmp_path, [HostService("svc", 9, port)]).start()
    loop = asyncio.new_event_loop()
    threading.Thread(target=loop.run_forever, daemon=True).start()
    try:
        servers = asyncio.run_coroutine_threadsafe(
            listen([("tcp:127.0.0.1:0", f"unix:{tmp_path / 'svc.sock'}")]), loop).result(5)
        relay_port = servers[0].sockets[0].getsockname()[1]
        assert oct((tmp_path / "svc.sock").stat().st_mode & 0o777) == "0o666"
        for _ in range(2):  # a keep-alive connection carries two requests
            with httpx.Client(base_url=f"http://127.0.0.1:{relay_port}") as client:
                answer = client.post("/s", json={})
                assert answer.text == "data: 0\n\ndata: 1\n\ndata: 2\n\n"
    finally:
        asyncio.run_coroutine_threadsafe(shutdown(servers), loop).result(5)
        loop.call_soon_threadsafe(loop.stop)
        bridge.stop()
        server.stop()


@pytest.mark.docker
def test_a_sandbox_reaches_a_host_service_by_alias_and_not_the_host(images, run_id, tmp_path):
    """In the developer environment, `http://svc:9300` is the host service; the host's ports stay unreachable."""
    from build_kits.taskspec import load_task
    from orchestrator.sandbox.environments import developer_environment

    port, server = _http_service()
    spec = load_task("retail-01")
    (tmp_path / "kit").mkdir()
    try:
        with developer_environment("docker", spec, tmp_path / "kit", run_id,
                                   host_services=[HostService("svc", 9300, port)]) as dev:
            probe = ("import urllib.request as u, sys\n"
                     "print(u.urlopen(u.Request(sys.argv[1], data=b'{}'), timeout=5).read().decode())\n")
            ok = dev.sandbox.exec(["python", "-c", probe, f"{dev.service_urls['svc']}/s"], cwd="/workspace",
                                  env={}, timeout=30)
            assert ok.returncode == 0 and "data: 2" in ok.stdout, ok.stderr
            direct = dev.sandbox.exec(["python", "-c", probe, f"http://172.17.0.1:{port}/s"], cwd="/workspace",
                                      env={}, timeout=30)
            assert direct.returncode != 0
    finally:
        server.stop()
