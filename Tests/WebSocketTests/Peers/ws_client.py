"""A `websockets` client that exercises our WebSocket server.

Usage: ws_client.py URL SCENARIO [ARG...] [--ca CA_PEM]. Prints one JSON line per result and exits 0 on success.
With --ca, a wss:// server must present a certificate signed by that CA.

  echo                 send text and binary messages up to 1 MiB, check each echo
  fragments            send a text and a binary message as fragments (from iterables), check the echoes
  ping                 ping the server and wait for the pong
  close CODE REASON    close with that code and reason; print what the server answered
  await-close          wait for the server to close; print the code and reason received
  vanish               drop the TCP connection without a close frame (after the handshake)
"""

import asyncio
import json
import os
import ssl
import sys
import threading

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

# The tests' hang guard (Duration.hangGuard): how long this peer waits for anything before it gives up. Only a bug
# waits it out; none of these waits is what a test is about.
HANG_GUARD_SECONDS = 120


def exit_with_parent():
    """Exit as soon as stdin (a pipe from the test process) reaches end of file: the test run is over."""
    def watch():
        while os.read(0, 4096):
            pass
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()


def report(**event):
    print(json.dumps(event), flush=True)


async def main():
    argv = sys.argv[1:]
    context = None
    if "--ca" in argv:
        index = argv.index("--ca")
        context = ssl.create_default_context(cafile=argv[index + 1])
        del argv[index:index + 2]
    url, scenario, *args = argv
    # A stalled machine must not fail the opening or the closing handshake.
    async with connect(url, max_size=None, compression=None, ping_interval=None, open_timeout=HANG_GUARD_SECONDS,
                       close_timeout=HANG_GUARD_SECONDS, ssl=context) as ws:
        if scenario == "echo":
            for size in (0, 1, 125, 126, 65535, 65536, 1 << 20):
                text = "é" * (size // 2)
                await ws.send(text)
                assert await ws.recv() == text, f"text echo of {size} bytes differs"
                data = bytes((i * 7) & 0xFF for i in range(size))
                await ws.send(data)
                assert await ws.recv() == data, f"binary echo of {size} bytes differs"
            report(event="echoed")
        elif scenario == "fragments":
            await ws.send(["frag", "mented ", "téxt"])
            assert await ws.recv() == "fragmented téxt"
            await ws.send([b"\x00\x01", b"", b"\x02" * 70000])
            assert await ws.recv() == b"\x00\x01" + b"\x02" * 70000
            report(event="fragments echoed")
        elif scenario == "ping":
            waiter = await ws.ping(b"hello")
            latency = await asyncio.wait_for(waiter, HANG_GUARD_SECONDS)
            report(event="pong", latency=latency)
        elif scenario == "close":
            await ws.close(int(args[0]), args[1])
            report(event="closed", code=ws.close_code, reason=ws.close_reason)
            return
        elif scenario == "await-close":
            try:
                await asyncio.wait_for(ws.recv(), HANG_GUARD_SECONDS)
            except ConnectionClosed:
                pass
            report(event="closed", code=ws.close_code, reason=ws.close_reason)
            return
        elif scenario == "vanish":
            report(event="vanishing")
            os._exit(0)
        await ws.close()


if __name__ == "__main__":
    exit_with_parent()
    asyncio.run(main())
