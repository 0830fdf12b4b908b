"""The kit tools' backend for one build: the client, local tests, the budget, the submission; every call is
appended to `build/kit_calls.jsonl`."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

from ..gateway import Seat
from . import render
from .local_test import LocalTester
from .scenario import LocalTestError

MAX_MESSAGE_CHARS = 4000


class KitCallError(RuntimeError):
    """A kit call the developer got wrong (4xx); the message is shown to them."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


class KitServices:
    """What `hypertau-kit` does, on the host. `bind` hands over the client and the local tester once the
    developer environment is up; `submitted` is set by `submit`."""

    def __init__(self, *, menu: dict, calls_log: Path, developer: Seat | None = None,
                 developer_model: str | None = None, cap_credits: float | None = None):
        self.menu = menu
        self.developer, self.developer_model, self.cap_credits = developer, developer_model, cap_credits
        self.calls_log = Path(calls_log)
        self.calls_log.parent.mkdir(parents=True, exist_ok=True)
        self.calls_log.touch()
        self.client = None
        self.tester: LocalTester | None = None
        self.submitted = threading.Event()
        self.submission: dict | None = None
        self._lock = threading.Lock()

    def bind(self, client=None, tester: LocalTester | None = None) -> None:
        """Attach the client simulator and the local tester."""
        self.client, self.tester = client, tester

    # tools ---------------------------------------------------------------------------------------------

    def talk(self, message: str) -> dict:
        message = (message or "").strip()
        if not message:
            raise KitCallError(400, "talk-to-client: say something (an empty message)")
        if len(message) > MAX_MESSAGE_CHARS:
            raise KitCallError(400, f"talk-to-client: keep a message under {MAX_MESSAGE_CHARS} characters")
        if self.client is None:
            raise KitCallError(503, "talk-to-client: the client is not available in this build")
        answer = self.client.ask(message)
        return self._done("talk-to-client", {"message": message}, {"text": answer, "data": {"answer": answer}})

    def local_test(self, scenario: object) -> dict:
        if self.tester is None:
            raise KitCallError(503, "local-test: not available in this build")
        try:
            record = self.tester.run(scenario)
        except LocalTestError as err:
            raise KitCallError(400, f"local-test: {err}") from None
        summary = {k: record[k] for k in ("episode_id", "reward", "termination", "graded", "error")}
        return self._done("local-test", {"scenario": scenario},
                          {"text": render.local_test_text(record), "data": summary}, log=summary)

    def budget(self) -> dict:
        usage = self.developer.usage().as_dict() if self.developer else {
            "calls": 0, "errors": 0, "prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0, "credits": 0.0}
        data = {"developer": {**usage, "cap_credits": self.cap_credits or 0.0, "model": self.developer_model},
                "menu": self.menu}
        return self._done("budget", {}, {"text": render.budget_text(data), "data": data}, log=data["developer"])

    def submit(self, note: str | None = None) -> dict:
        with self._lock:
            if self.submission is None:
                self.submission = {"at": round(time.time(), 3), "note": (note or "")[:MAX_MESSAGE_CHARS]}
                self.submitted.set()
                text = "Submitted. The workspace is sealed as it is when this session ends (in a few seconds)."
            else:
                text = "Already submitted; the session is ending."
        return self._done("submit", {"note": note}, {"text": text, "data": self.submission})

    # record --------------------------------------------------------------------------------------------

    def _done(self, tool: str, arguments: dict, answer: dict, log: dict | None = None) -> dict:
        line = {"ts": round(time.time(), 3), "tool": tool, "arguments": arguments,
                "result": log if log is not None else answer["text"][:2000]}
        with self._lock, self.calls_log.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(line, ensure_ascii=False, default=str) + "\n")
        return answer
