#!/usr/bin/env python3
"""A scripted HTTP server for the REST client tests.

Takes a JSON script as its only argument: {"rules": [rule, ...]}. A rule matches a request by "method" and
"path" (without query), and optionally "headers" (all must be equal); "times" limits how often it
matches (unlimited when absent). The first matching rule answers with "status", "headers" and either
"body" (any JSON value, sent as JSON) or "rawBody" (text); with "trickle": true, the body goes out one byte
for each line `next` on stdin, the server printing `trickling` once the head is out and `trickled` after each byte.
Unmatched requests get 599.

Prints the chosen port on its first line, then serves on 127.0.0.1 until terminated.
GET /__requests returns every request received so far (method, path, query, headers, body as text
or base64) as a JSON array.
"""
import base64
import json
import os
import signal
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

script = json.loads(sys.argv[1])
rules = script.get("rules", [])
lock = threading.Lock()
recorded = []


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):
        pass

    def handle_any(self):
        path, _, query = self.path.partition("?")
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.command == "GET" and path == "/__requests":
            with lock:
                self.respond(200, {}, json.dumps(recorded).encode())
            return
        headers = {name.lower(): value for name, value in self.headers.items()}
        try:
            body_text, body_base64 = body.decode("utf-8"), None
        except UnicodeDecodeError:
            body_text, body_base64 = None, base64.b64encode(body).decode()
        with lock:
            recorded.append({"method": self.command, "path": path, "query": query, "headers": headers,
                             "body": body_text, "bodyBase64": body_base64})
            rule = self.find_rule(path, headers)
        if rule is None:
            self.respond(599, {}, json.dumps({"code": "UNSCRIPTED", "message": self.command + " " + path}).encode())
            return
        if "rawBody" in rule:
            payload = rule["rawBody"].encode()
        elif "body" in rule:
            payload = json.dumps(rule["body"]).encode()
        else:
            payload = b""
        self.respond(rule.get("status", 200), rule.get("headers", {}), payload, rule.get("trickle"))

    def find_rule(self, path, headers):
        for rule in rules:
            if rule["method"] != self.command or rule["path"] != path:
                continue
            wanted = {name.lower(): value for name, value in rule.get("requestHeaders", {}).items()}
            if any(headers.get(name) != value for name, value in wanted.items()):
                continue
            if "times" in rule:
                if rule["times"] <= 0:
                    continue
                rule["times"] -= 1
            return rule
        return None

    def respond(self, status, headers, payload, trickle=None):
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if status != 204:
            if "Content-Type" not in headers:
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if status != 204 and trickle:
            self.wfile.flush()
            print("trickling", flush=True)
            for byte in payload:
                trickle_permits.acquire()
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                print("trickled", flush=True)
        elif status != 204:
            self.wfile.write(payload)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


# The test process may have started us with signals blocked; make terminate() work, and exit when
# the test process goes away (our stdin closes).
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
signal.signal(signal.SIGTERM, signal.SIG_DFL)


# One release per line `next` on stdin: a byte a trickling body may send.
trickle_permits = threading.Semaphore(0)


def exit_when_parent_goes():
    for line in sys.stdin:
        if line.strip() == "next":
            trickle_permits.release()
    os._exit(0)


threading.Thread(target=exit_when_parent_goes, daemon=True).start()
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
