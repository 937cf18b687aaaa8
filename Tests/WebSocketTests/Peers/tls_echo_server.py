"""TLS echo server for the WebSocket module's TLS tests.

Usage: tls_echo_server.py CERT KEY [--alpn PROTO ...] [--max-version 1.2|1.3]
Listens on 127.0.0.1 with an OS-chosen port, prints the port on one line, echoes every byte it receives,
answers close_notify with close_notify, and exits when its stdin closes (so it never outlives the test).
Blocking sockets (a thread per connection) so that handshake alerts reach the client before the close.
"""
import argparse
import socketserver
import ssl
import sys
import threading

parser = argparse.ArgumentParser()
parser.add_argument("cert")
parser.add_argument("key")
parser.add_argument("--alpn", nargs="*", default=[])
parser.add_argument("--max-version", choices=["1.2", "1.3"], default="1.3")
args = parser.parse_args()

context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(args.cert, args.key)
context.maximum_version = {"1.2": ssl.TLSVersion.TLSv1_2, "1.3": ssl.TLSVersion.TLSv1_3}[args.max_version]
if args.alpn:
    context.set_alpn_protocols(args.alpn)


class EchoHandler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.settimeout(120)
        try:
            with context.wrap_socket(self.request, server_side=True) as tls:
                while data := tls.recv(65536):
                    tls.sendall(data)
                tls.unwrap()
        except (OSError, ssl.SSLError):
            pass


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True


with Server(("127.0.0.1", 0), EchoHandler) as server:
    print(server.server_address[1], flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    server.shutdown()
