"""HTTP servers for the HTTP client's tests.

`--mode standard` (default): Python's own `http.server` speaking HTTP/1.1 with keep-alive (optionally over TLS
with --cert/--key). For each line `close` on its stdin it closes every connection it holds, as a server's idle
timeout would, and prints CLOSED once they are closed. Paths:
  /echo           200, the request body back; X-Method, X-Peer-Port (the client's port: one per connection),
                  X-Header-<name> for every request header
  /chunked        200, the body "alpha-beta-gamma" in three chunks
  /no-content     204
  /trickle        200, chunked and never ending: prints TRICKLING once its head is out, then sends a one-byte chunk
                  for each line `next` on its stdin and prints TRICKLED after each
  /close          200 with Content-Length and Connection: close
  /until-close    200 with no length: the body ends when the server closes
  /slow           prints SLOW on stdout and never answers: it waits until the client closes the connection
  /drop           closes the connection without answering
  /garbage        answers with bytes that are not HTTP
`--mode close-second`: a raw server that answers the first request on each connection (200, X-Peer-Port) and
closes the connection, unanswered, when a second one arrives on it.

Prints `PORT <n>` once listening on 127.0.0.1; exits when its stdin closes.
"""

import argparse
import http.server
import os
import socket
import ssl
import sys
import threading


# One release per line `next` on stdin: a byte /trickle may send.
trickle_permits = threading.Semaphore(0)

# The connections of the standard server, open until their handler ends.
open_connections = set()
open_connections_lock = threading.Lock()


def close_open_connections():
    with open_connections_lock:
        connections = list(open_connections)
    for connection in connections:
        try:
            connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
    print("CLOSED", flush=True)


def exit_with_parent():
    def watch():
        for line in sys.stdin:
            if line.strip() == "next":
                trickle_permits.release()
            elif line.strip() == "close":
                close_open_connections()
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def setup(self):
        super().setup()
        with open_connections_lock:
            open_connections.add(self.connection)

    def finish(self):
        with open_connections_lock:
            open_connections.discard(self.connection)
        super().finish()

    def answer(self, status, body, headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("X-Peer-Port", str(self.client_address[1]))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith("/echo"):
            headers = [("X-Method", self.command)]
            headers += [("X-Header-" + name, value) for name, value in self.headers.items()]
            self.answer(200, body, headers)
        elif self.path == "/chunked":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("X-Peer-Port", str(self.client_address[1]))
            self.end_headers()
            for part in (b"alpha-", b"beta-", b"gamma"):
                self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        elif self.path == "/close":
            self.close_connection = True
            self.answer(200, b"bye", [("Connection", "close")])
        elif self.path == "/until-close":
            self.close_connection = True
            self.send_response(200)
            self.send_header("X-Peer-Port", str(self.client_address[1]))
            self.end_headers()
            self.wfile.write(b"all of it, until the end")
        elif self.path == "/no-content":
            self.send_response(204)
            self.send_header("X-Peer-Port", str(self.client_address[1]))
            self.end_headers()
        elif self.path == "/trickle":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.flush()
            print("TRICKLING", flush=True)
            while True:
                trickle_permits.acquire()
                self.wfile.write(b"1\r\n.\r\n")
                self.wfile.flush()
                print("TRICKLED", flush=True)
        elif self.path == "/slow":
            print("SLOW", flush=True)
            self.close_connection = True
            self.rfile.read(1)  # until the client closes the connection (or sends more, which ends it too)
        elif self.path == "/drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif self.path == "/garbage":
            self.close_connection = True
            self.wfile.write(b"SMTP ready\r\n\r\n")
        else:
            self.answer(404, b"not found")

    do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = handle_any


def serve_standard(args):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(f"PORT {server.server_address[1]}", flush=True)
    server.serve_forever()


def read_request(connection, buffered):
    while b"\r\n\r\n" not in buffered:
        chunk = connection.recv(65536)
        if not chunk:
            return None, b""
        buffered += chunk
    head, rest = buffered.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(rest) < length:
        chunk = connection.recv(65536)
        if not chunk:
            return None, b""
        rest += chunk
    return head, rest[length:]


def serve_close_second(connection):
    port = connection.getpeername()[1]
    head, buffered = read_request(connection, b"")
    if head is not None:
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Peer-Port: %d\r\n\r\nfirst" % port)
        read_request(connection, buffered)
    connection.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="standard")
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    if args.mode == "standard":
        serve_standard(args)
        return
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve_close_second, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    exit_with_parent()
    main()
