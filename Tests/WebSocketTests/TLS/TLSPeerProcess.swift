import Foundation

/// A Python TLS peer from `Tests/WebSocketTests/Peers` run as a subprocess. Its stdin stays open while the
/// peer should live; `stop()` (or deinit) closes it and reaps the process. Use only on a `TLSTestThread`:
/// reading its output blocks.
final class TLSPeerProcess {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var pendingOutput: [UInt8] = []

    init(script: String, arguments: [String]) throws {
        let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", peers.appendingPathComponent(script).path] + arguments
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    deinit {
        stop()
    }

    /// The next line the peer printed, without its newline; nil if it exited first.
    func readLine() -> String? {
        while true {
            if let newline = pendingOutput.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pendingOutput[..<newline], as: UTF8.self)
                pendingOutput.removeSubrange(...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            pendingOutput.append(contentsOf: chunk)
        }
    }

    /// The port a server peer printed as its first line.
    func readPort() throws -> Int {
        guard let line = readLine(), let port = Int(line) else {
            throw TLSPeerProcessError(description: "the peer did not print its port")
        }
        return port
    }

    /// Waits for the peer to exit and returns its status.
    func waitForExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    func stop() {
        try? input.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
        }
        process.waitUntilExit()
    }
}

struct TLSPeerProcessError: Error, CustomStringConvertible {
    let description: String
}
