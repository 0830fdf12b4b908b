"""The docker backend honours the sandbox interface: exec (stdin, env, timeout), copy in/out, agent sessions
over attach (reply, crash, hang), and its confinement is what the container really gets."""

from __future__ import annotations

import json
import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from orchestrator.sandbox import SandboxError
from orchestrator.sandbox.docker import DockerSandbox
from orchestrator.sandbox.engine import Session
from orchestrator.sandbox.environments import agent_spec

from .conftest import leftovers

pytestmark = pytest.mark.docker


@pytest.fixture
def box(images, run_id):
    """A confined agent-image sandbox with no network at all."""
    sandbox = DockerSandbox(agent_spec(images["agent"], Session(run_id)))
    yield sandbox
    sandbox.stop()
    assert leftovers(run_id) == {"containers": [], "networks": []}


def _submission(tmp_path: Path, source: str) -> Path:
    root = tmp_path / "submission"
    root.mkdir()
    (root / "agent.py").write_text(textwrap.dedent(source))
    return root


def test_exec_with_stdin_env_and_exit_code(box):
    done = box.exec(["sh", "-c", 'read line; echo "$line $GREETING"; echo oops >&2; exit 3'], cwd="/tmp",
                    env={"GREETING": "world"}, timeout=20, stdin="hello\n")
    assert (done.returncode, done.stdout, done.stderr, done.timed_out) == (3, "hello world\n", "oops\n", False)


def test_exec_timeout(box):
    done = box.exec(["sleep", "30"], cwd="/tmp", env={}, timeout=1)
    assert done.timed_out and done.returncode == -1


def test_files_copied_before_start_are_read_only_and_copy_out_works(box, tmp_path):
    box.copy_in(_submission(tmp_path, "print('hi')\n"), "/submission")
    probe = box.exec(["sh", "-c", "cat /submission/agent.py; touch /submission/x 2>&1; touch /tmp/ok && echo tmp ok"],
                     cwd="/", env={}, timeout=20)
    assert "print('hi')" in probe.stdout and "Read-only file system" in probe.stdout and "tmp ok" in probe.stdout
    with pytest.raises(SandboxError, match="only before it starts"):
        box.copy_in(tmp_path / "submission", "/late")
    box.copy_out("/submission", tmp_path / "back")
    assert (tmp_path / "back" / "agent.py").read_text() == "print('hi')\n"


def test_writable_sandbox_copies_in_as_the_sandbox_user(images, run_id, tmp_path):
    with DockerSandbox(replace(agent_spec(images["agent"], Session(run_id)), read_only=False)) as sandbox:
        sandbox.exec(["true"], cwd="/", env={}, timeout=20)
        sandbox.copy_in(_submission(tmp_path, "x = 1\n"), "/home/agent/work")
        owner = sandbox.exec(["stat", "-c", "%u:%g", "/home/agent/work/agent.py"], cwd="/", env={}, timeout=20)
        assert owner.stdout.strip() == "1000:1000"
        with pytest.raises(SandboxError, match="does not exist"):
            sandbox.copy_out("/nope", tmp_path / "nope")


def test_agent_session_replies_then_crash_is_seen(box, tmp_path):
    box.copy_in(_submission(tmp_path, """
        import json, sys
        line = sys.stdin.readline()
        print(json.dumps({"type": "assistant", "content": json.loads(line)["content"].upper()}), flush=True)
        print("about to fail", file=sys.stderr, flush=True)
        sys.stdin.readline()
        raise SystemExit(7)
    """), "/submission")
    stderr = tmp_path / "agent.stderr"
    session = box.start_agent(["python", "agent.py"], cwd="/submission", env={}, stderr_path=stderr)
    assert session.send({"type": "user", "content": "hi"})
    assert session.receive(timeout=30) == {"type": "assistant", "content": "HI"}
    session.send({"type": "user", "content": "again"})
    assert session.receive(timeout=30) == "eof"
    assert session.close() == 7
    assert "about to fail" in stderr.read_text()


def test_hanging_agent_times_out_and_is_killed(box, tmp_path):
    box.copy_in(_submission(tmp_path, "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
                                      "time.sleep(120)\n"), "/submission")
    session = box.start_agent(["python", "agent.py"], cwd="/submission", env={},
                              stderr_path=tmp_path / "agent.stderr")
    session.send({"type": "user", "content": "hi"})
    assert session.receive(timeout=1) is None
    assert session.close(grace=0.5) not in (0, None)


def test_agent_container_confinement(box, tmp_path, images):
    """What the engine reports for a sealed agent, and what the agent itself sees."""
    box.copy_in(_submission(tmp_path, """
        import json, os, sys
        status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
        sys.stdin.readline()
        print(json.dumps({"type": "assistant", "content": json.dumps({
            "uid": os.getuid(), "cap_eff": status["CapEff"].strip(), "no_new_privs": status["NoNewPrivs"].strip(),
            "root_writable": os.access("/", os.W_OK), "tmp_writable": os.access("/tmp", os.W_OK)})}), flush=True)
    """), "/submission")
    session = box.start_agent(["python", "agent.py"], cwd="/submission", env={},
                              stderr_path=tmp_path / "agent.stderr")
    session.send({"type": "user", "content": "report"})
    seen = json.loads(session.receive(timeout=30)["content"])
    assert seen == {"uid": 1000, "cap_eff": "0000000000000000", "no_new_privs": "1", "root_writable": False,
                    "tmp_writable": True}
    host_config = box.inspect()["HostConfig"]
    assert host_config["ReadonlyRootfs"] and host_config["CapDrop"] == ["ALL"]
    assert host_config["SecurityOpt"] == ["no-new-privileges"] and host_config["PidsLimit"] == 128
    assert "/tmp" in host_config["Tmpfs"] and host_config["Memory"] > 0
    assert [m["RW"] for m in box.inspect()["Mounts"]] == [False]  # the submission, read-only
    session.close()
