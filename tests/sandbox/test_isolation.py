"""Invariant 5, checked from inside the containers, with no traffic leaving the machine: the developer
sandbox has no default route and resolves no external name, reaches its services by name, sees /kit
read-only; a sealed agent reaches its own tenant, not the admin side and not a tenant it has no token for."""

from __future__ import annotations

import json
import textwrap

import pytest

from build_kits.assemble import assemble_kit, workspace_source
from build_kits.taskspec import load_task
from orchestrator.sandbox.environments import developer_environment, evaluation_environment
from orchestrator.workspace import init_workspace

from .conftest import leftovers

pytestmark = pytest.mark.docker

# Run inside the developer container. The name lookup is attempted only once the probe has seen that there is
# no default route, so even a broken sandbox cannot send the query off the machine.
DEVELOPER_PROBE = textwrap.dedent("""
    import json, os, socket, urllib.request
    out = {"uid": os.getuid()}
    routes = [line.split() for line in open("/proc/net/route").read().splitlines()[1:]]
    out["default_route"] = any(r[1] == "00000000" for r in routes)
    out["resolv_conf"] = [l for l in open("/etc/resolv.conf").read().splitlines() if l.startswith("nameserver")]
    if not out["default_route"]:
        try:
            socket.getaddrinfo("pypi.org", 443)
            out["external_name"] = "resolved"
        except OSError as err:
            out["external_name"] = type(err).__name__
        probe = socket.socket()
        probe.settimeout(2)
        try:
            probe.connect(("172.17.0.1", 80))  # the host's default docker bridge
            out["host_bridge"] = "connected"
        except OSError as err:
            out["host_bridge"] = type(err).__name__
    out["api_by_name"] = urllib.request.urlopen("http://api:8100/healthz", timeout=5).status
    out["tenant_api"] = urllib.request.urlopen(os.environ["HYPERTAU_API_URL"] + "/openapi.json", timeout=5).status
    out["kit_readable"] = os.path.isfile("/kit/BRIEF.md")
    try:
        open("/kit/written-by-developer", "w")
        out["kit_write"] = "allowed"
    except OSError as err:
        out["kit_write"] = err.strerror
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def kit(tmp_path_factory):
    spec = load_task("retail-01")
    root = tmp_path_factory.mktemp("kit")
    assemble_kit(spec, root / "kit", provenance_path=root / "kit_provenance.json")
    return spec, root / "kit"


def test_developer_sandbox_is_offline_with_services_by_name(kit, run_id, images, tmp_path):
    spec, kit_dir = kit
    with developer_environment("docker", spec, kit_dir, run_id) as dev:
        workspace = tmp_path / "ws"
        init_workspace(workspace_source(spec.inherited_workspace), workspace)
        dev.sandbox.copy_in(workspace, "/workspace")
        seen = dev.sandbox.exec(["python", "-c", DEVELOPER_PROBE], cwd="/workspace", env={}, timeout=60)
        assert seen.returncode == 0, seen.stderr
        probe = json.loads(seen.stdout)
        first_commit = dev.sandbox.exec(["git", "log", "--reverse", "--format=%s"], cwd="/workspace", env={},
                                        timeout=30)
        host_config = dev.sandbox.inspect()["HostConfig"]
        command = dev.sandbox.inspect()["Config"]["Cmd"]
        assert leftovers(run_id)["networks"], "the build runs on a per-run network"
    assert probe["uid"] == 1000 and probe["default_route"] is False
    assert probe["resolv_conf"] == ["nameserver 127.0.0.11"]  # Docker's embedded DNS: container names only
    assert probe["external_name"] == "gaierror" and probe["host_bridge"] != "connected"
    assert probe["api_by_name"] == 200 and probe["tenant_api"] == 200
    assert probe["kit_readable"] and probe["kit_write"] == "Read-only file system"
    assert first_commit.stdout.splitlines()[0] == "Initial import"
    assert host_config["NanoCpus"] == int(spec.sandbox.cpus * 1e9) and host_config["Memory"] == 4 * 1024 ** 3
    assert host_config["PidsLimit"] > 0 and host_config["CapDrop"] == ["ALL"]
    assert command == ["sleep", str(spec.sandbox.time_limit_minutes * 60)]  # the wall-clock limit
    assert leftovers(run_id) == {"containers": [], "networks": []}


AGENT_PROBE = """
import json, os, socket, sys, urllib.error, urllib.request

def status(url):
    try:
        return urllib.request.urlopen(url, timeout=5).status
    except urllib.error.HTTPError as err:
        return err.code
    except OSError as err:
        return type(err).__name__

def connect(host, port):
    probe = socket.socket()
    probe.settimeout(2)
    try:
        probe.connect((host, port))
        return "connected"
    except OSError as err:
        return type(err).__name__

sys.stdin.readline()
own = os.environ["HYPERTAU_API_URL"]
out = {
    "own_tenant": status(own + "/openapi.json"),
    "own_tenant_lookup": status(own + "/users/nobody_12345"),
    "unknown_token": status("http://api:8100/t/" + "x" * 32 + "/openapi.json"),
    "tenant_listing": status("http://api:8100/tenants"),
    "admin_port": connect("api", 8101),
    "admin_socket_visible": os.path.exists("/run/hypertau-admin"),
    "host_bridge": connect("172.17.0.1", 80),
}
print(json.dumps({"type": "assistant", "content": json.dumps(out)}), flush=True)
"""


def test_agent_reaches_only_its_tenant(run_id, images, tmp_path):
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "agent.py").write_text(AGENT_PROBE)
    with evaluation_environment("docker", run_id) as env:
        mine = env.registry.create("retail", seed=1)
        other = env.registry.create("retail", seed=1)
        sandbox = env.sandbox_factory()
        try:
            sandbox.copy_in(submission, "/submission")
            session = sandbox.start_agent(["python", "agent.py"], cwd="/submission",
                                          env={"HYPERTAU_API_URL": f"{env.public_url}/t/{mine.token}"},
                                          stderr_path=tmp_path / "agent.stderr")
            session.send({"type": "user", "content": "probe"})
            reply = session.receive(timeout=60)
            assert isinstance(reply, dict), (tmp_path / "agent.stderr").read_text()
            probe = json.loads(reply["content"])
            networks = sandbox.inspect()["NetworkSettings"]["Networks"]
            session.close()
        finally:
            sandbox.stop()
        assert [e["path"] for e in mine.request_log] == ["/users/nobody_12345"]
        assert other.request_log == []  # nothing the agent did reached the other tenant
    assert probe == {"own_tenant": 200, "own_tenant_lookup": 404, "unknown_token": 404, "tenant_listing": 404,
                     "admin_port": "ConnectionRefusedError", "admin_socket_visible": False,
                     "host_bridge": probe["host_bridge"]}
    assert probe["host_bridge"] != "connected"
    assert len(networks) == 1 and next(iter(networks)).startswith("hypertau-")  # its own conversation network
    assert leftovers(run_id) == {"containers": [], "networks": []}
