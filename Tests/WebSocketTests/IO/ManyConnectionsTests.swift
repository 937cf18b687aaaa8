import Foundation
import Glibc
import TestSupport
import Testing
@testable import WebSocket

/// Thousands of connections share the event loops: no thread per connection.
@Suite("Many connections")
struct ManyConnectionsTests {
    /// Raises the soft limit on open descriptors to `count` (or the hard limit), as a server would at startup.
    static func raiseDescriptorLimit(to count: Int) {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let wanted = min(rlim_t(count), limit.rlim_max)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    static var threadCount: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }

    @Test func twoThousandIdleConnectionsNeedNoThreadOfTheirOwn() async throws {
        let count = 2000
        Self.raiseDescriptorLimit(to: 2 * count + 512)
        let server = try await LoopbackWebSocketTests.startEchoServer()
        let url = try #require(URL(string: "ws://127.0.0.1:\(server.port)/"))
        let threadsBefore = Self.threadCount
        let connections = try await withThrowingTaskGroup(of: [WebSocketConnection].self) { group in
            for _ in 0..<20 {
                group.addTask {
                    var opened: [WebSocketConnection] = []
                    for _ in 0..<(count / 20) {
                        opened.append(try await WebSocketClient.connect(to: url, configuration: .patient))
                    }
                    return opened
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(connections.count == count)
        #expect(server.connectionCount == count)
        // Loops and pool threads are fixed; a thread per connection would add 2,000. The bound leaves room for
        // the threads that other suites, running in parallel in this process, start meanwhile.
        #expect(Self.threadCount - threadsBefore < count / 4)
        for (index, connection) in connections.enumerated() where index % 100 == 0 {
            var replies = connection.messages.makeAsyncIterator()
            try await connection.send(text: "still there \(index)")
            #expect(await replies.next() == .text("still there \(index)"))
        }
        await withTaskGroup(of: Void.self) { group in
            for connection in connections {
                group.addTask { await connection.close() }
            }
        }
        await server.shutdown()
    }
}
