#!/usr/bin/env python3
"""Writes the seed corpus of the fuzz targets: a few valid and almost-valid inputs per target, so that libFuzzer
starts from the shapes of real traffic instead of discovering the frame and HTTP syntax from nothing.

Usage: make_seed_corpus.py OUTPUT_DIR   (creates OUTPUT_DIR/<target>/<name>)
The input layouts (the control byte) are described at the top of each Fuzz/*.swift target.
"""
import json
import os
import struct
import sys


def frame(opcode, payload=b"", fin=True, mask=None):
    """One WebSocket frame; `mask` is 4 bytes for a client frame, None for a server frame."""
    head = bytes([(0x80 if fin else 0) | opcode])
    length = len(payload)
    mask_bit = 0x80 if mask is not None else 0
    if length <= 125:
        head += bytes([mask_bit | length])
    elif length <= 0xFFFF:
        head += bytes([mask_bit | 126]) + struct.pack(">H", length)
    else:
        head += bytes([mask_bit | 127]) + struct.pack(">Q", length)
    if mask is None:
        return head + payload
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def close_payload(code, reason=""):
    return struct.pack(">H", code) + reason.encode()


def websocket_seeds():
    key = b"\x37\xfa\x21\x3d"
    server = 0x01  # the fuzzed endpoint is a server: the peer's frames are masked
    client = 0x00  # the fuzzed endpoint is a client: the peer's frames are unmasked
    hello = frame(0x1, b"Hello", mask=key)
    seeds = {
        "client-text": [server, hello],
        "client-text-bytewise": [server | (1 << 1), hello],
        "client-fragmented-with-ping": [
            server | (7 << 1),
            frame(0x1, b"Hel", fin=False, mask=key) + frame(0x9, b"hb", mask=key) + frame(0x0, b"lo", mask=key),
        ],
        "client-binary-16bit-length": [server, frame(0x2, bytes(range(256)) * 2, mask=key)],
        "client-close": [server | (1 << 6), frame(0x8, close_payload(1000, "bye"), mask=key)],
        "client-utf8": [server | (3 << 1), frame(0x1, "héllo wörld €".encode(), mask=key)],
        "server-text": [client, frame(0x1, b'{"type":"pong","replyTo":"c-1","data":{}}')],
        "server-close-4008": [client | (2 << 6), frame(0x8, close_payload(4008, "30"))],
        "server-pong-then-text": [client | (5 << 1), frame(0xA, b"p") + frame(0x1, b"after")],
        "server-unmasked-to-server": [server, frame(0x1, b"no mask")],
        "server-64bit-length": [client, bytes([0x82, 127]) + struct.pack(">Q", 3) + b"abc"],
    }
    return {name: bytes([control]) + data for name, (control, data) in seeds.items()}


def chatter_seeds():
    message = {
        "id": "01JF0000000000000000000041", "conversationId": "01JE0000000000000000000000", "seq": 41,
        "senderId": "01JC0000000000000000000000", "clientMessageId": "6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55",
        "type": "text", "body": "See you at 8?", "mediaId": None, "replyToId": None,
        "reactions": [{"emoji": "👍", "userIds": ["01JB0000000000000000000000"]}],
        "createdAt": "2026-10-22T14:20:11.482Z", "editedAt": None, "deletedAt": None,
    }
    frames = {
        "session-ready": {"type": "session.ready", "data": {
            "userId": "01JB…", "deviceId": "01JB8ZD…", "serverTime": "2026-10-22T14:03:11.482Z",
            "heartbeatIntervalMs": 25000}},
        "message-ack": {"type": "message.ack", "replyTo": "c-42", "data": {
            "clientMessageId": "6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55", "messageId": "01JF…",
            "conversationId": "01JE…", "seq": 42, "createdAt": "2026-10-22T14:20:11.482Z"}},
        "error": {"type": "error", "replyTo": "c-42", "data": {
            "code": "NOT_FRIENDS", "message": "You can only message friends.", "details": {"field": "body"}}},
        "message-new": {"type": "message.new", "data": message},
        "sync-response": {"type": "sync.response", "replyTo": "c-1", "data": {"conversations": {
            "01JE…": {"messages": [message], "hasMore": False,
                      "members": [{"userId": "01JC…", "lastDeliveredSeq": 42, "lastReadSeq": 40}]}}}},
        "presence-snapshot": {"type": "presence.snapshot", "data": {"users": [
            {"userId": "01JC…", "isOnline": False, "lastSeenAt": "2026-10-22T13:00:00.000Z"}]}},
        "typing": {"type": "typing", "data": {"conversationId": "01JE…", "userId": "01JC…", "isTyping": True}},
        "unknown-type": {"type": "story.posted", "data": {"storyId": "s1", "views": [1, 2.5, -3e10, None]}},
        "pong": {"type": "pong", "replyTo": "c-7", "data": {}},
        "client-message-send": {"id": "c-42", "type": "message.send", "data": {
            "conversationId": "01JE…", "clientMessageId": "6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55",
            "type": "text", "body": "See you at 8?", "mediaId": None, "replyToId": None}},
        "client-sync-request": {"id": "c-1", "type": "sync.request", "data": {
            "conversations": {"01JE…": 40, "01JG…": 7}, "limitPerConversation": 100}},
        "client-receipt-read": {"type": "receipt.read", "data": {"conversationId": "01JE…", "seq": 42}},
    }
    seeds = {name: json.dumps(value, ensure_ascii=False).encode() for name, value in frames.items()}
    seeds["not-json"] = b"not json at all"
    seeds["wrong-field-type"] = b'{"type":"typing","data":{"conversationId":42,"userId":"u1","isTyping":true}}'
    seeds["no-type"] = b'{"data":{}}'
    # A number beyond 2^53 with a fraction: once encoded in its shortest digits it read back as another integer.
    seeds["huge-fraction"] = b'{"type":"message.new","data":{"seq":888888888888888888.888888888888888888841}}'
    seeds["close-4008"] = struct.pack(">H", 4008) + b"30"
    return seeds


def echo_floor_seeds():
    """The C floor: server frames as a socket delivers them (control bit 0 = 0, split at control >> 1), and single
    text messages and HTTP response heads (bit 0 = 1)."""
    texts = chatter_seeds()
    stream = 0x40 << 1  # split about halfway
    frames = b"".join(frame(0x1, texts[name]) for name in ("session-ready", "message-new", "message-ack", "pong"))
    new = texts["message-new"]
    seeds = {
        "stream": bytes([stream]) + frames,
        "stream-fragmented": bytes([stream]) + frame(0x1, new[:40], fin=False) + frame(0x9, b"hb")
        + frame(0x0, new[40:]),
        "stream-long": bytes([0x7F << 1]) + frame(0x1, json.dumps({"type": "message.new", "data": {
            "id": "m", "conversationId": "c", "seq": 1, "senderId": "s", "type": "text",
            "body": "x\u00e9\ud83d\ude00" * 40}}).encode()),
        "stream-close": bytes([0]) + frame(0x8, close_payload(4008, "30")),
        "response-101": bytes([1]) + b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
        b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
        "response-200": bytes([1]) + b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}",
    }
    for name in ("message-new", "message-ack", "sync-response", "error", "session-ready", "wrong-field-type"):
        seeds["text-" + name] = bytes([1]) + texts[name]
    return seeds


def http_seeds():
    request = 0x00
    response = 0x01
    upgrade = (b"GET /v1/ws?clientKey=ck_1&token=abc%2Fdef HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"
               b"Upgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n"
               b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    post = (b"POST /v1/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 27\r\n\r\n{\"username\":\"a\",\"pw\":\"b\"}\r\n")
    chunked = (b"POST /v1/media HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\nTrailer: t\r\n\r\n")
    get = b"GET /v1/conversations?updatedSince=2026-10-22T14%3A03%3A11.482Z HTTP/1.1\r\nHost: x\r\n\r\n"
    switching = (b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
    refused = b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 12\r\n\r\nunauthorized"
    close_delimited = b"HTTP/1.0 400 Bad Request\r\n\r\nbody until the connection closes"
    seeds = {
        "upgrade": (request, upgrade),
        "upgrade-bytewise": (request | (1 << 1), upgrade),
        "post-body": (request, post),
        "chunked": (request | (9 << 1), chunked),
        "pipelined": (request | (13 << 1), get + post + get),
        "http10-keep-alive": (request, b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
        "response-101": (response, switching),
        "response-401": (response | (4 << 1), refused),
        "response-close-delimited": (response, close_delimited),
    }
    return {name: bytes([control]) + data for name, (control, data) in seeds.items()}


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    output = sys.argv[1]
    for target, seeds in (("websocket-codec", websocket_seeds()), ("chatter-frames", chatter_seeds()),
                          ("http-parser", http_seeds()), ("echo-floor", echo_floor_seeds())):
        directory = os.path.join(output, target)
        os.makedirs(directory, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(directory, name), "wb") as file:
                file.write(data)


if __name__ == "__main__":
    main()
