"""An independent realtime client (Python `websockets`) for the sandbox conformance tests.

Usage: realtime_peer.py <scenario: session | oversize | invalid-utf8> <ws-url> [conversation-id]

Prints one JSON object per line: {"received": <frame>} for each frame read, and finally
{"closed": <code>, "reason": <reason>} or {"done": true}. Exits non-zero on an unexpected failure.
"""

import asyncio
import json
import sys

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

# The tests' hang guard (Duration.hangGuard): how long this peer waits for anything before it gives up. Only a bug
# waits it out; none of these waits is what a test is about.
HANG_GUARD_SECONDS = 120


def report(value):
    print(json.dumps(value), flush=True)


async def receive(ws):
    text = await asyncio.wait_for(ws.recv(), timeout=HANG_GUARD_SECONDS)
    frame = json.loads(text)
    report({"received": frame})
    return frame


async def session(url, conversation_id):
    async with connect(url, max_size=None, open_timeout=HANG_GUARD_SECONDS, close_timeout=HANG_GUARD_SECONDS) as ws:
        await receive(ws)  # session.ready
        await receive(ws)  # presence.snapshot
        await ws.send("definitely not json")
        await receive(ws)  # error VALIDATION_FAILED
        await ws.send(json.dumps({"id": "p-1", "type": "ping", "data": {}}))
        await receive(ws)  # pong
        await ws.send(json.dumps({
            "id": "p-2",
            "type": "message.send",
            "data": {
                "conversationId": conversation_id,
                "clientMessageId": "4b1d0c9e-5a8f-4d2b-9c3e-python-peer",
                "type": "text",
                "body": "from python",
                "mediaId": None,
                "replyToId": None,
            },
        }))
        await receive(ws)  # message.ack
    report({"done": True})


async def oversize(url):
    async with connect(url, max_size=None, open_timeout=HANG_GUARD_SECONDS, close_timeout=HANG_GUARD_SECONDS) as ws:
        await receive(ws)
        await receive(ws)
        await ws.send("x" * (64 * 1024 + 1))
        try:
            while True:
                await asyncio.wait_for(ws.recv(), timeout=HANG_GUARD_SECONDS)
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            reason = closed.rcvd.reason if closed.rcvd is not None else None
            report({"closed": code, "reason": reason})


async def invalid_utf8(url, conversation_id):
    async with connect(url, max_size=None, open_timeout=HANG_GUARD_SECONDS, close_timeout=HANG_GUARD_SECONDS) as ws:
        await receive(ws)
        await receive(ws)
        frame = json.dumps({
            "id": "u-1",
            "type": "message.send",
            "data": {
                "conversationId": conversation_id,
                "clientMessageId": "invalid-utf8",
                "type": "text",
                "body": "@@",
                "mediaId": None,
                "replyToId": None,
            },
        }).encode().replace(b"@@", b"\xff\xfe")
        # text=True sends the bytes as a text frame as they are, without checking them.
        await ws.send(frame, text=True)
        try:
            while True:
                report({"received": json.loads(await asyncio.wait_for(ws.recv(), timeout=HANG_GUARD_SECONDS))})
        except ConnectionClosed as closed:
            code = closed.rcvd.code if closed.rcvd is not None else None
            report({"closed": code})


def main():
    scenario, url = sys.argv[1], sys.argv[2]
    if scenario == "session":
        asyncio.run(session(url, sys.argv[3]))
    elif scenario == "oversize":
        asyncio.run(oversize(url))
    elif scenario == "invalid-utf8":
        asyncio.run(invalid_utf8(url, sys.argv[3]))
    else:
        raise SystemExit(f"unknown scenario {scenario}")


if __name__ == "__main__":
    main()
