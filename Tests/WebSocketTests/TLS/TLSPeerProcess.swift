import ChildProcesses
import Dispatch
import Foundation
import Glibc
import Synchronization
import TestSupport

/// A Python TLS peer from `Tests/WebSocketTests/Peers` run as a subprocess. Its stdin stays open while the
/// peer should live; `stop()` (or deinit) closes it and reaps the process. Use only on a `TLSTestThread`:
/// its calls block the calling thread (never more than 30 s each).
final class TLSPeerProcess: Sendable {
    private let child: ChildProcess

    init(script: String, arguments: [String]) throws {
        let peers = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers")
        child = try ChildProcess([try TestPeer.python(), peers.appendingPathComponent(script).path] + arguments)
    }

    deinit {
        stop()
    }

    /// The next line the peer printed, without its newline; nil if it exited first or printed nothing for a hang guard.
    func readLine() -> String? {
        let child = child
        return Self.blocking { (try? await child.nextLine(timeout: .hangGuard)) ?? nil } ?? nil
    }

    /// The port a server peer printed as its first line.
    func readPort() throws -> Int {
        guard let line = readLine(), let port = Int(line) else {
            throw TLSPeerProcessError(description: "the peer did not print its port")
        }
        return port
    }

    /// Waits (at most a hang guard, then kills it) for the peer to exit and returns its status.
    func waitForExit() -> Int32 {
        let child = child
        if let status = Self.blocking({ await child.termination(timeout: .hangGuard) }) ?? nil { return status.status }
        child.kill()
        return Self.blocking { await child.exitStatus() } ?? -1
    }

    func stop() {
        child.closeInput()
        child.kill(SIGTERM)
        _ = waitForExit()
    }

    /// Runs `body` in a task and blocks this (dedicated, non-pool) thread until it finishes; nil once a minute more
    /// than a hang guard has passed (`body` bounds its own wait by one).
    private static func blocking<Value: Sendable>(_ body: @escaping @Sendable () async -> Value) -> Value? {
        let result = Mutex<Value?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let value = await body()
            result.withLock { $0 = value }
            done.signal()
        }
        let (seconds, _) = (Duration.hangGuard + .seconds(60)).components
        guard done.wait(timeout: .now() + .seconds(Int(seconds))) == .success else { return nil }
        return result.withLock { $0 }
    }
}

struct TLSPeerProcessError: Error, CustomStringConvertible {
    let description: String
}
