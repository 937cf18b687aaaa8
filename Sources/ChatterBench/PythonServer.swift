import Foundation

/// The Python `websockets` server of the WebSocket tests (Tests/WebSocketTests/Peers/ws_server.py), run as a
/// child process for the benchmark; it exits when its stdin (a pipe from this process) closes.
final class PythonServer: Sendable {
    private let process: Process
    private let output: Pipe
    private let input: Pipe

    init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Tests/WebSocketTests/Peers/ws_server.py").standardized.path
        process = Process()
        output = Pipe()
        input = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", script]
        process.standardOutput = output
        process.standardInput = input
        try process.run()
    }

    deinit {
        process.terminate()
    }

    /// The port it listens on, from the `PORT <n>` line it prints first.
    func port() async throws -> Int {
        let handle = output.fileHandleForReading
        let line: String = await withCheckedContinuation { continuation in
            // A thread of its own: the read blocks, and Dispatch's global queues share threads with the pool.
            Thread {
                var bytes: [UInt8] = []
                while true {
                    let byte = handle.readData(ofLength: 1)
                    if byte.isEmpty || byte.first == 0x0A { break }
                    bytes.append(contentsOf: byte)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }.start()
        }
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            throw BenchmarkError("the websockets server did not start (is Python's websockets installed?): \(line)")
        }
        return port
    }
}
