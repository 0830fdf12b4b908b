"""Docker's multiplexed attach/exec stream: 8-byte frame headers (stream id, size) over a hijacked socket."""

from __future__ import annotations

import socket
import struct
import time
from collections.abc import Iterator

STDOUT, STDERR = 1, 2


class StreamTimeout(TimeoutError):
    """The deadline passed before the stream ended."""


def _read_exactly(raw: socket.socket, size: int, deadline: float | None) -> bytes:
    """`size` bytes, or fewer only at EOF; StreamTimeout past the deadline."""
    data = bytearray()
    while len(data) < size:
        if deadline is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise StreamTimeout()
            raw.settimeout(remaining)
        try:
            chunk = raw.recv(size - len(data))
        except TimeoutError:
            raise StreamTimeout() from None
        if not chunk:
            break
        data += chunk
    return bytes(data)


def frames(raw: socket.socket, deadline: float | None = None) -> Iterator[tuple[int, bytes]]:
    """(stream id, payload) frames until the peer closes the stream."""
    while True:
        header = _read_exactly(raw, 8, deadline)
        if len(header) < 8:
            return
        stream, size = header[0], struct.unpack(">I", header[4:])[0]
        payload = _read_exactly(raw, size, deadline)
        yield stream, payload
        if len(payload) < size:
            return


def stdout_lines(raw: socket.socket) -> Iterator[str]:
    """Decoded stdout lines of an attach stream (the tail without a newline is yielded at EOF)."""
    pending = b""
    try:
        for stream, payload in frames(raw):
            if stream != STDOUT:
                continue
            pending += payload
            *complete, pending = pending.split(b"\n")
            for line in complete:
                yield line.decode("utf-8", errors="replace") + "\n"
    except OSError:
        pass
    if pending:
        yield pending.decode("utf-8", errors="replace")


def collect(raw: socket.socket, deadline: float | None) -> tuple[bytes, bytes, bool]:
    """All stdout and stderr of an exec stream; the flag says the deadline cut it short."""
    out, err = bytearray(), bytearray()
    try:
        for stream, payload in frames(raw, deadline):
            (err if stream == STDERR else out).extend(payload)
    except StreamTimeout:
        return bytes(out), bytes(err), True
    return bytes(out), bytes(err), False


class SocketWriter:
    """The text-file face of a socket's sending half, as `AgentSession` writes to it."""

    def __init__(self, raw: socket.socket):
        self._raw = raw

    def write(self, text: str) -> int:
        self._raw.sendall(text.encode("utf-8"))
        return len(text)

    def flush(self) -> None:
        """Nothing is buffered."""

    def close(self) -> None:
        """Half-close: the container sees end of input."""
        try:
            self._raw.shutdown(socket.SHUT_WR)
        except OSError:
            pass
