import Foundation

/// `chatter-bench <scenario>`: prints figures for one part of the project.
let arguments = CommandLine.arguments.dropFirst()
switch arguments.first {
case "websocket":
    await WebSocketBenchmark(quick: arguments.contains("--quick")).run()
default:
    print("""
        usage: chatter-bench <scenario> [options]
          websocket [--quick]   WebSocket messages/s and MB/s, one way and round trip, 64 B and 64 KiB,
                                our client to our server and to a Python `websockets` server
        """)
    exit(arguments.isEmpty ? 0 : 2)
}
