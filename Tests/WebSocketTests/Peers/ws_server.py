"""A `websockets` server that exercises our WebSocket client.

Prints `PORT <n>` once listening on 127.0.0.1 (port chosen by the OS), then one JSON line per notable event
(e.g. the close code and reason it received). The request path selects the behaviour:

  /echo                   echo every message, text as text and binary as binary
  /sink?count=N           receive N messages, then send the text "done" (for the benchmark)
  /fragments              on each text message "N:text", echo it back as N fragments (sent from an iterable)
  /ping                   send a ping with payload b"are you there", then report when the pong arrived
  /close?code=C&reason=R  close at once with that code and reason
  /vanish                 drop the TCP connection without a close frame
  /reject                 refuse the upgrade with HTTP 403 and a body

Usage: ws_server.py [--cert CERT --key KEY]  (with a certificate, serves wss://)
"""

import argparse
import asyncio
import json
import os
import ssl
import sys
import threading
from urllib.parse import parse_qs, urlsplit

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Response

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


async def handler(ws):
    url = urlsplit(ws.request.path)
    query = parse_qs(url.query)
    report(event="open", path=url.path, query=url.query, headers="\n".join(f"{k}: {v}" for k, v in ws.request.headers.raw_items()))
    try:
        if url.path == "/echo":
            async for message in ws:
                await ws.send(message)
        elif url.path == "/sink":
            expected = int(query["count"][0])
            received = 0
            async for _ in ws:
                received += 1
                if received == expected:
                    await ws.send("done")
        elif url.path == "/fragments":
            async for message in ws:
                count, _, text = message.partition(":")
                size = max(1, -(-len(text) // int(count)))
                await ws.send([text[i:i + size] for i in range(0, len(text), size)])
        elif url.path == "/ping":
            waiter = await ws.ping(b"are you there")
            latency = await asyncio.wait_for(waiter, HANG_GUARD_SECONDS)
            report(event="pong", latency=latency)
            await ws.send("pong received")
            async for _ in ws:
                pass
        elif url.path == "/close":
            await ws.close(int(query["code"][0]), query.get("reason", [""])[0])
        elif url.path == "/vanish":
            ws.transport.abort()
            return
        async for _ in ws:
            pass
    except ConnectionClosed:
        pass
    report(event="closed", code=ws.close_code, reason=ws.close_reason)


def process_request(connection, request):
    if urlsplit(request.path).path == "/reject":
        return Response(403, "Forbidden", Headers([("Content-Type", "text/plain"), ("Content-Length", "10")]), b"go away!!\n")
    return None


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    context = None
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
    # The opening and closing handshakes may take as long as the tests' hang guard: a whole-suite run on two cores
    # can hold the client off the CPU for a minute, past websockets' defaults of 10 s.
    async with serve(handler, "127.0.0.1", 0, ssl=context, max_size=None, compression=None, ping_interval=None,
                     process_request=process_request, open_timeout=HANG_GUARD_SECONDS,
                     close_timeout=HANG_GUARD_SECONDS) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"PORT {port}", flush=True)
        await asyncio.Future()


if __name__ == "__main__":
    exit_with_parent()
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
