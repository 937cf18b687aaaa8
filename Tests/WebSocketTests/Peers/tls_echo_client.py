"""TLS client for the WebSocket module's TLS server tests.

Usage: tls_echo_client.py PORT CAFILE SERVER_NAME MESSAGE [--alpn PROTO ...]
Connects to 127.0.0.1:PORT verifying the server against CAFILE for SERVER_NAME, sends MESSAGE, reads the
echo, closes with close_notify, and prints one JSON line: {"echo", "version", "alpn"}; on failure prints
{"error"} and exits with status 1.
"""
import argparse
import json
import socket
import ssl
import sys

parser = argparse.ArgumentParser()
parser.add_argument("port", type=int)
parser.add_argument("cafile")
parser.add_argument("server_name")
parser.add_argument("message")
parser.add_argument("--alpn", nargs="*", default=[])
args = parser.parse_args()

context = ssl.create_default_context(cafile=args.cafile)
if args.alpn:
    context.set_alpn_protocols(args.alpn)
try:
    with socket.create_connection(("127.0.0.1", args.port), timeout=120) as raw:
        with context.wrap_socket(raw, server_hostname=args.server_name) as tls:
            expected = args.message.encode()
            tls.sendall(expected)
            echo = b""
            while len(echo) < len(expected):
                chunk = tls.recv(65536)
                if not chunk:
                    break
                echo += chunk
            result = {"echo": echo.decode(), "version": tls.version(), "alpn": tls.selected_alpn_protocol()}
            tls.unwrap()
except (OSError, ssl.SSLError) as error:
    print(json.dumps({"error": str(error)}), flush=True)
    sys.exit(1)
print(json.dumps(result), flush=True)
