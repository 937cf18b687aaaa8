"""A WebSocket server that completes the opening handshake and then never answers anything: it reads and
discards every byte and never sends a close frame, nor closes the TCP connection. For testing that a client's
close finishes within its close timeout even when the peer never answers.

Prints `PORT <n>` once listening on 127.0.0.1.
"""

import base64
import hashlib
import os
import socket
import sys
import threading

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def exit_with_parent():
    def watch():
        while os.read(0, 4096):
            pass
        os._exit(0)
    threading.Thread(target=watch, daemon=True).start()


def serve(connection):
    request = b""
    while b"\r\n\r\n" not in request:
        chunk = connection.recv(4096)
        if not chunk:
            return
        request += chunk
    key = next(line.split(b":", 1)[1].strip() for line in request.split(b"\r\n")
               if line.lower().startswith(b"sec-websocket-key:"))
    accept = base64.b64encode(hashlib.sha1(key + GUID.encode()).digest())
    connection.sendall(b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                       b"Sec-WebSocket-Accept: " + accept + b"\r\n\r\n")
    while connection.recv(65536):
        pass


def main():
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    print(f"PORT {listener.getsockname()[1]}", flush=True)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    exit_with_parent()
    main()
