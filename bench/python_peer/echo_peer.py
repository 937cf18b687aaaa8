#!/usr/bin/env python3
"""The reference echo bot in Python, for chatter-bench: the stack a Python user would pick (asyncio, the
`websockets` library, `sqlite3`), doing the same durable work as a ChatterBots bot:

- sign in: the stored refresh token, else POST /auth/login with the stored deviceId (one device for life);
- connect, wait for session.ready, refresh over REST (conversations updatedSince, friend requests, friends);
- sync.request with the highest contiguous seq per conversation, following hasMore through REST;
- group commit, as a careful asyncio user writes it: frames read off the socket are queued, and a flush task
  commits every message and ack queued so far in ONE SQLite transaction (each message recorded as seen for dedupe,
  its reply put in the outbox, the cursors, the acks marked), THEN sends the replies. With `"commit": "each"` in
  the configuration it commits each message and each ack on its own instead (the first, naive peer);
- after every (re)connect, resend every unacknowledged outbox entry with its original clientMessageId;
- receipt.read after handling (coalesced per conversation); ping every heartbeatIntervalMs, no pong within 10 s
  means the connection is dead; backoff 1, 2, 4, 8, 16, 30 s with +-20 % jitter; 4001 refresh, 4002 stop,
  4003 fresh sign-in, 4008 wait the seconds in the reason.
- SQLite in WAL mode with synchronous=NORMAL, one file per bot.

It runs every bot of a configuration file in one process and speaks chatter-bench's line protocol: JSON events on
stdout (boot, live, acked, error); commands on stdin (start, acked); end of stdin stops the bots gracefully.
"""

import asyncio
import json
import os
import random
import resource
import sqlite3
import sys
import threading
import time
import urllib.parse
import uuid

import websockets
from websockets.asyncio.client import connect

SCHEMA = """
CREATE TABLE IF NOT EXISTS session (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    user_id TEXT NOT NULL, device_id TEXT NOT NULL, access_token TEXT NOT NULL, refresh_token TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS conversations (id TEXT PRIMARY KEY, last_seq INTEGER NOT NULL, updated_at TEXT);
CREATE TABLE IF NOT EXISTS seen (message_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS outbox (
    client_message_id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, body TEXT NOT NULL,
    created_at REAL NOT NULL, acked_at REAL, message_id TEXT);
CREATE INDEX IF NOT EXISTS outbox_pending ON outbox (created_at) WHERE acked_at IS NULL;
"""

REPLY_NAMESPACE = uuid.UUID("6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55")
BACKOFF = [1, 2, 4, 8, 16, 30]
PONG_TIMEOUT = 10.0
READY_TIMEOUT = 10.0


def emit(event):
    sys.stdout.write(json.dumps(event) + "\n")
    sys.stdout.flush()


class ApiError(Exception):
    def __init__(self, status, body):
        super().__init__(f"HTTP {status}: {body}")
        self.status = status
        self.body = body


class Rest:
    """A small HTTP/1.1 JSON client on asyncio streams (the standard library has no asyncio HTTP client), with a
    bound on concurrent requests like aiohttp's connector (100)."""

    def __init__(self, api_url, client_key, limit=100):
        parts = urllib.parse.urlsplit(api_url)
        self.host = parts.hostname
        self.port = parts.port or 80
        self.base_path = parts.path.rstrip("/")
        self.client_key = client_key
        self.limit = asyncio.Semaphore(limit)

    async def request(self, method, path, body=None, token=None):
        payload = b"" if body is None else json.dumps(body).encode()
        headers = [
            f"{method} {self.base_path}{path} HTTP/1.1",
            f"Host: {self.host}:{self.port}",
            f"X-Client-Key: {self.client_key}",
            "Connection: close",
            f"Content-Length: {len(payload)}",
        ]
        if body is not None:
            headers.append("Content-Type: application/json")
        if token:
            headers.append(f"Authorization: Bearer {token}")
        async with self.limit:
            reader, writer = await asyncio.open_connection(self.host, self.port)
            try:
                writer.write(("\r\n".join(headers) + "\r\n\r\n").encode() + payload)
                await writer.drain()
                status_line = await reader.readline()
                status = int(status_line.split()[1])
                length = None
                while True:
                    line = await reader.readline()
                    if line in (b"\r\n", b"\n", b""):
                        break
                    name, _, value = line.decode().partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value.strip())
                data = await (reader.readexactly(length) if length is not None else reader.read())
            finally:
                writer.close()
        decoded = json.loads(data) if data else None
        if status >= 400:
            raise ApiError(status, decoded)
        return decoded


class Closed(Exception):
    def __init__(self, code, reason):
        super().__init__(f"closed {code} {reason}")
        self.code = code
        self.reason = reason


class EchoBot:
    def __init__(self, index, bot, config, fleet):
        self.index = index
        self.name = bot["name"]
        self.username = bot["username"]
        self.password = bot["password"]
        self.config = config
        self.fleet = fleet
        self.rest = fleet.rest
        self.db = None
        self.user_id = self.device_id = self.access_token = self.refresh_token = None
        self.cursors = {}
        self.ahead = {}  # conversation -> seqs handled beyond the contiguous cursor
        self.ws = None
        self.waiting = {}  # request id -> future (sync.request, ping)
        self.receipts = {}
        self.flushing = False
        self.connections = 0
        self.stopping = False
        self.request_number = 0
        self.group_commit = config.get("commit", "group") == "group"
        self.inbox = []  # messages read and not yet committed, in arrival order
        self.acks = []  # acks read and not yet marked
        self.flush_task = None

    def open_store(self):
        path = os.path.join(self.config["dataDirectory"], f"{self.name}.sqlite")
        self.db = sqlite3.connect(path, isolation_level=None)
        os.chmod(path, 0o600)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)
        row = self.db.execute("SELECT user_id, device_id, access_token, refresh_token FROM session").fetchone()
        self.user_id, self.device_id, self.access_token, self.refresh_token = row or (None, None, None, None)
        self.cursors = dict(self.db.execute("SELECT id, last_seq FROM conversations"))

    # --- signing in -------------------------------------------------------------------------------------------

    def store_session(self, session):
        self.user_id = session["user"]["id"]
        self.device_id = session["deviceId"]
        self.access_token = session["accessToken"]
        self.refresh_token = session["refreshToken"]
        with self.db:
            self.db.execute("BEGIN")
            self.db.execute(
                "INSERT OR REPLACE INTO session (id, user_id, device_id, access_token, refresh_token) VALUES (1, ?, ?, ?, ?)",
                (self.user_id, self.device_id, self.access_token, self.refresh_token))

    async def sign_in(self, fresh=False):
        if self.refresh_token and not fresh:
            try:
                self.store_session(await self.rest.request("POST", "/auth/refresh", {"refreshToken": self.refresh_token}))
                return
            except ApiError as error:
                if error.status != 401:
                    raise
        body = {"username": self.username, "password": self.password, "deviceId": None if fresh else self.device_id,
                "device": {"name": "python-peer", "platform": "python"}}
        self.store_session(await self.rest.request("POST", "/auth/login", body))

    # --- the session ------------------------------------------------------------------------------------------

    async def run(self):
        try:
            self.open_store()
        except sqlite3.Error as error:
            # This bot stops (its store is unusable, e.g. out of file descriptors); the others go on.
            emit({"event": "error", "message": f"{self.name}: cannot open the store: {error}"})
            return
        attempt = 0
        signed_in = False
        while not self.stopping:
            delay = None
            try:
                if not signed_in:
                    await self.sign_in()
                    signed_in = True
                await self.connect_and_serve()
                attempt = 0
                delay = 0
            except Closed as closed:
                if self.stopping:
                    break
                if closed.code == 4001:
                    signed_in = False
                    delay = 0
                elif closed.code == 4002:
                    emit({"event": "error", "message": f"{self.name}: client key refused (4002), stopping"})
                    return
                elif closed.code == 4003:
                    self.refresh_token = None
                    self.device_id = None
                    signed_in = False
                    delay = 0
                elif closed.code == 4008:
                    delay = float(closed.reason or 1)
            except ApiError as error:
                if error.status == 401 and (error.body or {}).get("code") == "INVALID_CREDENTIALS":
                    emit({"event": "error", "message": f"{self.name}: credentials refused, stopping"})
                    return
            except (OSError, asyncio.TimeoutError, websockets.exceptions.WebSocketException):
                pass
            if self.stopping:
                break
            if delay is None:
                base = BACKOFF[min(attempt, len(BACKOFF) - 1)]
                delay = base * random.uniform(0.8, 1.2)
                attempt += 1
            if delay:
                await self.fleet.sleep_unless_stopping(delay)

    async def connect_and_serve(self):
        query = urllib.parse.urlencode({"clientKey": self.config["clientKey"], "token": self.access_token})
        url = f"{self.config['webSocketURL']}?{query}"
        try:
            async with connect(url, ping_interval=None, compression=None, max_size=2 ** 20, max_queue=None,
                               open_timeout=15, close_timeout=5, proxy=None) as ws:
                ready = json.loads(await asyncio.wait_for(ws.recv(), READY_TIMEOUT))
                if ready.get("type") != "session.ready":
                    raise Closed(1002, "no session.ready")
                self.ws = ws
                interval = ready["data"].get("heartbeatIntervalMs") or 25000
                reader = asyncio.create_task(self.read(ws))
                heartbeat = asyncio.create_task(self.heartbeat(ws, interval / 1000))
                try:
                    await self.synchronize(ws)
                    self.connections += 1
                    emit({"event": "live", "bot": self.index, "connection": self.connections})
                    await self.resend_outbox(ws)
                    await reader
                finally:
                    heartbeat.cancel()
                    reader.cancel()
                    self.ws = None
                    for future in self.waiting.values():
                        if not future.done():
                            future.set_exception(Closed(1006, "connection lost"))
                            # Its caller may be gone (the heartbeat cancelled above): the exception counts as seen.
                            future.exception()
                    self.waiting.clear()
        except websockets.exceptions.ConnectionClosed as closed:
            frame = closed.rcvd
            raise Closed(frame.code if frame else 1006, frame.reason if frame else "")
        if ws.close_code is not None and ws.close_code != 1000:
            raise Closed(ws.close_code, ws.close_reason or "")

    def next_id(self, prefix):
        self.request_number += 1
        return f"{prefix}{self.request_number}"

    async def request(self, ws, type_, data):
        frame_id = self.next_id("r")
        future = asyncio.get_running_loop().create_future()
        self.waiting[frame_id] = future
        await ws.send(json.dumps({"id": frame_id, "type": type_, "data": data}))
        return await future

    async def read(self, ws):
        try:
            async for text in ws:
                frame = json.loads(text)
                kind = frame.get("type")
                reply_to = frame.get("replyTo")
                if kind == "message.new":
                    if self.group_commit:
                        self.inbox.append(frame["data"])
                        self.schedule_flush()
                    else:
                        await self.handle(frame["data"])
                elif kind == "message.ack":
                    if self.group_commit:
                        self.acks.append(frame["data"])
                        self.schedule_flush()
                    else:
                        self.acked(frame["data"])
                elif reply_to in self.waiting:
                    future = self.waiting.pop(reply_to)
                    if not future.done():
                        future.set_result(frame)
                elif kind == "error":
                    emit({"event": "error", "message": f"{self.name}: {frame.get('data')}"})
        except websockets.exceptions.ConnectionClosed:
            pass

    async def heartbeat(self, ws, interval):
        while True:
            await asyncio.sleep(interval)
            try:
                await asyncio.wait_for(self.request(ws, "ping", {}), PONG_TIMEOUT)
            except asyncio.TimeoutError:
                ws.transport.abort()
                return
            except (websockets.exceptions.ConnectionClosed, Closed):
                # The connection ended while the ping was out: the reader reports it.
                return

    async def synchronize(self, ws):
        token = self.access_token
        conversations = (await self.rest.request("GET", "/conversations", token=token))["conversations"]
        with self.db:
            self.db.execute("BEGIN")
            for conversation in conversations:
                if conversation["id"] not in self.cursors:
                    self.cursors[conversation["id"]] = 0
                    self.db.execute("INSERT OR IGNORE INTO conversations (id, last_seq, updated_at) VALUES (?, 0, ?)",
                                    (conversation["id"], conversation["updatedAt"]))
        await self.rest.request("GET", "/friend-requests", token=token)
        await self.rest.request("GET", "/friends", token=token)
        if not self.cursors:
            return
        reply = await self.request(ws, "sync.request", {"conversations": dict(self.cursors)})
        for conversation_id, result in reply["data"]["conversations"].items():
            await self.handle_all(result["messages"])
            more = result.get("hasMore", False)
            while more:
                after = self.cursors.get(conversation_id, 0)
                page = await self.rest.request(
                    "GET", f"/conversations/{conversation_id}/messages?afterSeq={after}&limit=100", token=token)
                await self.handle_all(page["messages"])
                more = page["hasMore"] and page["messages"]

    async def handle_all(self, messages):
        if self.group_commit:
            self.inbox.extend(messages)
            self.schedule_flush()
            await self.drained()
        else:
            for message in messages:
                await self.handle(message)

    async def resend_outbox(self, ws):
        pending = self.db.execute(
            "SELECT client_message_id, conversation_id, body FROM outbox WHERE acked_at IS NULL ORDER BY created_at").fetchall()
        for client_message_id, conversation_id, body in pending:
            await self.send_reply(ws, client_message_id, conversation_id, body)

    # --- messages ---------------------------------------------------------------------------------------------

    def advance(self, conversation_id, seq):
        """Moves the contiguous cursor; returns the SQL to persist it."""
        cursor = self.cursors.get(conversation_id, 0)
        if seq <= cursor:
            return cursor
        ahead = self.ahead.setdefault(conversation_id, set())
        ahead.add(seq)
        while cursor + 1 in ahead:
            cursor += 1
            ahead.discard(cursor)
        self.cursors[conversation_id] = cursor
        return cursor

    async def handle(self, message):
        message_id = message["id"]
        conversation_id = message["conversationId"]
        seq = message["seq"]
        own = message["senderId"] == self.user_id
        client_message_id = str(uuid.uuid5(REPLY_NAMESPACE, f"{self.user_id}/{message_id}/0"))
        body = "echo: " + (message.get("body") or "")
        with self.db:
            self.db.execute("BEGIN")
            inserted = self.db.execute(
                "INSERT OR IGNORE INTO seen (message_id, conversation_id, seq) VALUES (?, ?, ?)",
                (message_id, conversation_id, seq)).rowcount
            if not inserted:
                return
            cursor = self.advance(conversation_id, seq)
            self.db.execute(
                "INSERT INTO conversations (id, last_seq) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET last_seq = excluded.last_seq",
                (conversation_id, cursor))
            reply = not own and message.get("type") == "text" and message.get("body")
            if reply:
                self.db.execute(
                    "INSERT OR IGNORE INTO outbox (client_message_id, conversation_id, body, created_at) VALUES (?, ?, ?, ?)",
                    (client_message_id, conversation_id, body, time.time()))
        ws = self.ws
        if reply and ws is not None:
            await self.send_reply(ws, client_message_id, conversation_id, body)
        self.mark_read(conversation_id, seq)

    # --- group commit -------------------------------------------------------------------------------------------

    def schedule_flush(self):
        """Starts the flush task unless one runs: it first runs once the reader has taken every frame already
        received, so a burst shares one transaction."""
        if self.flush_task is None:
            self.flush_task = asyncio.get_running_loop().create_task(self.flush())

    async def drained(self):
        while self.flush_task is not None:
            await asyncio.shield(self.flush_task)

    async def flush(self):
        try:
            while self.inbox or self.acks:
                messages, self.inbox = self.inbox, []
                acks, self.acks = self.acks, []
                replies, handled = self.commit(messages, acks)
                ws = self.ws
                if ws is not None:
                    for client_message_id, conversation_id, body in replies:
                        await self.send_reply(ws, client_message_id, conversation_id, body)
                for conversation_id, seq in handled:
                    self.mark_read(conversation_id, seq)
        finally:
            self.flush_task = None

    def commit(self, messages, acks):
        """One transaction for everything queued: messages seen, replies in the outbox, cursors, acks marked."""
        replies = []
        handled = []
        moved = {}
        acked = 0
        now = time.time()
        with self.db:
            self.db.execute("BEGIN")
            for message in messages:
                message_id = message["id"]
                conversation_id = message["conversationId"]
                seq = message["seq"]
                inserted = self.db.execute(
                    "INSERT OR IGNORE INTO seen (message_id, conversation_id, seq) VALUES (?, ?, ?)",
                    (message_id, conversation_id, seq)).rowcount
                if not inserted:
                    continue
                moved[conversation_id] = self.advance(conversation_id, seq)
                if message["senderId"] != self.user_id and message.get("type") == "text" and message.get("body"):
                    client_message_id = str(uuid.uuid5(REPLY_NAMESPACE, f"{self.user_id}/{message_id}/0"))
                    body = "echo: " + message["body"]
                    self.db.execute(
                        "INSERT OR IGNORE INTO outbox (client_message_id, conversation_id, body, created_at) VALUES (?, ?, ?, ?)",
                        (client_message_id, conversation_id, body, now))
                    replies.append((client_message_id, conversation_id, body))
                handled.append((conversation_id, seq))
            for ack in acks:
                acked += self.db.execute(
                    "UPDATE outbox SET acked_at = ?, message_id = ? WHERE client_message_id = ? AND acked_at IS NULL",
                    (now, ack["messageId"], ack["clientMessageId"])).rowcount
                # The bot's own reply holds a seq of the conversation too: the contiguous cursor passes over it.
                moved[ack["conversationId"]] = self.advance(ack["conversationId"], ack["seq"])
            if moved:
                self.db.executemany(
                    "INSERT INTO conversations (id, last_seq) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET last_seq = excluded.last_seq",
                    list(moved.items()))
        self.fleet.acked += acked
        return replies, handled

    async def send_reply(self, ws, client_message_id, conversation_id, body):
        frame = {"id": client_message_id, "type": "message.send",
                 "data": {"conversationId": conversation_id, "clientMessageId": client_message_id, "type": "text",
                          "body": body, "mediaId": None, "replyToId": None}}
        try:
            await ws.send(json.dumps(frame))
        except websockets.exceptions.ConnectionClosed:
            pass  # stays in the outbox; resent after the reconnect

    def acked(self, ack):
        with self.db:
            self.db.execute("BEGIN")
            changed = self.db.execute(
                "UPDATE outbox SET acked_at = ?, message_id = ? WHERE client_message_id = ? AND acked_at IS NULL",
                (time.time(), ack["messageId"], ack["clientMessageId"])).rowcount
        if changed:
            self.fleet.acked += 1

    def mark_read(self, conversation_id, seq):
        if seq > self.receipts.get(conversation_id, 0):
            self.receipts[conversation_id] = seq
            if not self.flushing:
                self.flushing = True
                asyncio.get_running_loop().create_task(self.flush_receipts())

    async def flush_receipts(self):
        try:
            while self.receipts and self.ws is not None:
                pending, self.receipts = self.receipts, {}
                for conversation_id, seq in pending.items():
                    await self.ws.send(json.dumps({"type": "receipt.read", "data": {"conversationId": conversation_id, "seq": seq}}))
        except (websockets.exceptions.ConnectionClosed, AttributeError):
            pass
        finally:
            self.flushing = False

    async def stop(self):
        self.stopping = True
        ws = self.ws
        if ws is not None:
            await ws.close(1000)


class Fleet:
    def __init__(self, config):
        self.config = config
        self.rest = Rest(config["apiURL"], config["clientKey"])
        self.acked = 0
        self.stopped = asyncio.Event()
        os.makedirs(config["dataDirectory"], exist_ok=True)
        self.bots = [EchoBot(index, bot, config, self) for index, bot in enumerate(config["bots"])]

    async def sleep_unless_stopping(self, seconds):
        try:
            await asyncio.wait_for(self.stopped.wait(), seconds)
        except asyncio.TimeoutError:
            pass


def stdin_lines(loop):
    queue = asyncio.Queue()

    def read():
        for line in sys.stdin:
            loop.call_soon_threadsafe(queue.put_nowait, line.strip())
        loop.call_soon_threadsafe(queue.put_nowait, None)

    threading.Thread(target=read, daemon=True).start()
    return queue


async def main(path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    with open(path) as file:
        config = json.load(file)
    commands = stdin_lines(asyncio.get_running_loop())
    emit({"event": "boot"})
    if await commands.get() != "start":
        return
    fleet = Fleet(config)
    tasks = [asyncio.create_task(bot.run()) for bot in fleet.bots]
    while True:
        command = await commands.get()
        if command is None:
            break
        if command == "acked":
            emit({"event": "acked", "total": fleet.acked})
        else:
            emit({"event": "error", "message": f"unknown command {command}"})
    fleet.stopped.set()
    await asyncio.gather(*(bot.stop() for bot in fleet.bots), return_exceptions=True)
    await asyncio.wait(tasks, timeout=10)
    for bot in fleet.bots:
        if bot.db is not None:
            bot.db.close()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
