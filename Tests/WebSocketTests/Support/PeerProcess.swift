import Foundation
import Synchronization

/// A Python test peer run as a subprocess; its stdout is read line by line.
final class PeerProcess: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let process: Process
    /// The peer's stdin: the peer exits when it reads end of file, i.e. when this process is gone, even if it
    /// crashed or was killed, so no peer outlives a test run (and holds its output pipes open).
    private let lifeline: Pipe
    private let lines = Lines()

    /// The lines read so far, shared with the pipe's readability handler.
    private final class Lines: Sendable {
        let buffer = Mutex(LineBuffer())
        func withLock<R>(_ body: (inout LineBuffer) -> R) -> R { buffer.withLock { body(&$0) } }
    }

    fileprivate struct LineBuffer {
        var partial: [UInt8] = []
        var lines: [String] = []
        var isClosed = false
        var waiter: CheckedContinuation<String?, Never>?
    }

    /// The folder of the Python peers.
    static let peersDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Peers")

    /// Starts `python3 <Peers/script> arguments...`; with `mergingStandardError`, its stderr lines are read too.
    init(script: String, arguments: [String] = [], mergingStandardError: Bool = false) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-u", Self.peersDirectory.appendingPathComponent(script).path] + arguments
        let output = Pipe()
        lifeline = Pipe()
        process.standardInput = lifeline
        process.standardOutput = output
        process.standardError = mergingStandardError ? output : FileHandle.standardError
        output.fileHandleForReading.readabilityHandler = { [lines] handle in
            let data = handle.availableData
            let waiterAndLine = lines.withLock { buffer -> (CheckedContinuation<String?, Never>, String?)? in
                if data.isEmpty {
                    buffer.isClosed = true
                    handle.readabilityHandler = nil
                } else {
                    buffer.partial.append(contentsOf: data)
                    while let newline = buffer.partial.firstIndex(of: 0x0A) {
                        buffer.lines.append(String(decoding: buffer.partial[..<newline], as: UTF8.self))
                        buffer.partial.removeSubrange(...newline)
                    }
                }
                guard let waiter = buffer.waiter else { return nil }
                if !buffer.lines.isEmpty {
                    buffer.waiter = nil
                    return (waiter, buffer.lines.removeFirst())
                }
                if buffer.isClosed {
                    buffer.waiter = nil
                    return (waiter, nil)
                }
                return nil
            }
            if let (waiter, line) = waiterAndLine { waiter.resume(returning: line) }
        }
        try process.run()
    }

    deinit {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        try? lifeline.fileHandleForWriting.close()
    }

    /// The next line the peer printed; fails if none comes within `timeout` or the peer exits.
    func nextLine(timeout: Duration = .seconds(20)) async throws -> String {
        let timer = DispatchWorkItem { [lines] in
            let waiter = lines.withLock { buffer -> CheckedContinuation<String?, Never>? in
                defer { buffer.waiter = nil }
                return buffer.waiter
            }
            waiter?.resume(returning: nil)
        }
        let line = await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let ready = lines.withLock { buffer -> String?? in
                if !buffer.lines.isEmpty { return .some(buffer.lines.removeFirst()) }
                if buffer.isClosed { return .some(nil) }
                buffer.waiter = continuation
                return .none
            }
            if let ready {
                continuation.resume(returning: ready)
            } else {
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(timeout.components.seconds) * 1_000_000_000), execute: timer)
            }
        }
        timer.cancel()
        guard let line else { throw Failure(description: "the peer printed nothing more (exited or timed out)") }
        return line
    }

    /// The next line, decoded as a JSON object.
    func nextEvent(timeout: Duration = .seconds(20)) async throws -> [String: any Sendable] {
        let line = try await nextLine(timeout: timeout)
        guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw Failure(description: "not a JSON object: \(line)")
        }
        return object.mapValues { value -> any Sendable in
            switch value {
            case let number as NSNumber: number.intValue
            case let text as String: text
            default: "\(value)"
            }
        }
    }

    /// Reads the `PORT <n>` line a server peer prints once listening.
    func port() async throws -> Int {
        let line = try await nextLine()
        guard line.hasPrefix("PORT "), let port = Int(line.dropFirst(5)) else {
            throw Failure(description: "expected PORT <n>, got \(line)")
        }
        return port
    }

    /// Kills the peer at once (SIGKILL): its sockets close without any WebSocket close frame.
    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Waits for the peer to exit and returns its status.
    func exitStatus() async -> Int32 {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [process] in
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }
}
