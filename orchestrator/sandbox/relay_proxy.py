"""A byte pipe between two addresses (`tcp:HOST:PORT` or `unix:PATH`), standard library only.

Run as a script in the relay container (`LISTEN=TARGET ...`: TCP on the sandbox network to a Unix socket in
a host directory) and imported on the host (that Unix socket to the service's loopback port). This is how a
sandbox on an internal network that the host is not on reaches a service of the host, and nothing else.
"""

from __future__ import annotations

import asyncio
import os
import sys

CHUNK = 65536


def _split(address: str) -> tuple[str, str, int]:
    kind, _, rest = address.partition(":")
    if kind == "unix":
        return kind, rest, 0
    host, _, port = rest.rpartition(":")
    if kind != "tcp" or not port.isdigit():
        raise ValueError(f"bad address {address!r} (tcp:HOST:PORT or unix:PATH)")
    return kind, host, int(port)


async def _connect(address: str):
    kind, where, port = _split(address)
    if kind == "unix":
        return await asyncio.open_unix_connection(where)
    return await asyncio.open_connection(where, port)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until EOF, then half-close the other side (HTTP clients may wait for the rest of a stream)."""
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except (ConnectionError, OSError, RuntimeError):
        writer.close()


def _handler(target: str):
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            upstream_reader, upstream_writer = await _connect(target)
        except OSError:
            writer.close()
            return
        try:
            await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
        finally:
            for side in (writer, upstream_writer):
                side.close()
    return handle


async def listen(routes: list[tuple[str, str]]) -> list[asyncio.AbstractServer]:
    """Start one listener per (listen, target); Unix sockets are made connectable by any uid."""
    servers = []
    for address, target in routes:
        kind, where, port = _split(address)
        if kind == "unix":
            if os.path.exists(where):
                os.unlink(where)
            servers.append(await asyncio.start_unix_server(_handler(target), where))
            os.chmod(where, 0o666)
        else:
            servers.append(await asyncio.start_server(_handler(target), where, port))
    return servers


async def shutdown(servers: list[asyncio.AbstractServer]) -> None:
    """Stop listening and end the connections still open (their tasks are cancelled and awaited)."""
    for server in servers:
        server.close()
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _main(routes: list[tuple[str, str]]) -> None:
    await listen(routes)
    print("ready", flush=True)
    await asyncio.Event().wait()


if __name__ == "__main__":
    pairs = [arg.split("=", 1) for arg in sys.argv[1:]]
    if not pairs or any(len(pair) != 2 for pair in pairs):
        sys.exit("usage: relay_proxy.py LISTEN=TARGET ... (addresses: tcp:HOST:PORT, unix:PATH)")
    try:
        asyncio.run(_main([(a, b) for a, b in pairs]))
    except KeyboardInterrupt:
        pass
