import Foundation
import Glibc
import WebSocket

/// Measures the WebSocket module on loopback: messages/s and MB/s, one way (the receiver acknowledges the last
/// message) and round trip (send, await the echo, repeat), for 64 B and 64 KiB messages, from our client to our
/// own server and to a Python `websockets` server. Also reports the memory an idle connection costs.
struct WebSocketBenchmark {
    var quick: Bool

    private struct Row {
        var target: String
        var size: Int
        var mode: String
        var messages: Int
        var seconds: Double

        var messagesPerSecond: Double { Double(messages) / seconds }
        var megabytesPerSecond: Double { Double(messages * size) / seconds / 1_000_000 }
    }

    private struct Target {
        var name: String
        var base: String
        /// Message counts: (one way 64 B, round trip 64 B, one way 64 KiB, round trip 64 KiB).
        var counts: (Int, Int, Int, Int)
    }

    func run() async {
        let scale = quick ? 10 : 1
        do {
            let server = try await HTTPServer.start(responder: HTTPClosureResponder(Self.respond))
            let peer = try PythonServer()
            let targets = [
                Target(name: "our server", base: "ws://127.0.0.1:\(server.port)",
                       counts: (1_000_000 / scale, 20_000 / scale, 20_000 / scale, 5_000 / scale)),
                Target(name: "websockets 17.4", base: "ws://127.0.0.1:\(try await peer.port())",
                       counts: (200_000 / scale, 10_000 / scale, 5_000 / scale, 2_000 / scale)),
            ]
            print("WebSocket benchmark on loopback (\(EventLoopGroup.coreCount) cores), our client to:")
            print(Self.header)
            for target in targets {
                let plan = [(64, "one way", target.counts.0), (64, "round trip", target.counts.1),
                            (65536, "one way", target.counts.2), (65536, "round trip", target.counts.3)]
                for (size, mode, count) in plan {
                    let seconds = mode == "one way"
                        ? try await oneWay(base: target.base, size: size, count: count)
                        : try await roundTrip(base: target.base, size: size, count: count)
                    print(Self.format(Row(target: target.name, size: size, mode: mode, messages: count, seconds: seconds)))
                }
            }
            try await idleConnectionCost(base: targets[0].base, count: quick ? 200 : 2000)
            await peer.stop()
            await server.shutdown()
        } catch {
            print("benchmark failed: \(error)")
            exit(1)
        }
    }

    /// Our server's app: `/echo` echoes, `/sink?count=N` answers "done" after N messages.
    @Sendable private static func respond(_ request: HTTPRequest) async -> HTTPServerResponse {
        if request.path == "/sink", let expected = request.queryValue("count").flatMap(Int.init) {
            return .webSocket { connection in
                var received = 0
                for await _ in connection.messages {
                    received += 1
                    if received == expected { try? await connection.send(text: "done") }
                }
            }
        }
        return .webSocket { connection in
            for await message in connection.messages { try? await connection.send(message) }
        }
    }

    /// Sends `count` messages back to back; the clock stops when the receiver says it has them all.
    private func oneWay(base: String, size: Int, count: Int) async throws -> Double {
        let connection = try await WebSocketClient.connect(to: url("\(base)/sink?count=\(count)"))
        var replies = connection.messages.makeAsyncIterator()
        let payload = [UInt8](repeating: 0x5A, count: size)
        let start = ContinuousClock.now
        for _ in 0..<count { try await connection.send(binary: payload) }
        guard await replies.next() == .text("done") else { throw BenchFailure("no acknowledgement") }
        let elapsed = ContinuousClock.now - start
        await connection.close()
        return elapsed.seconds
    }

    /// Sends one message and awaits its echo, `count` times.
    private func roundTrip(base: String, size: Int, count: Int) async throws -> Double {
        let connection = try await WebSocketClient.connect(to: url("\(base)/echo"))
        var replies = connection.messages.makeAsyncIterator()
        let payload = [UInt8](repeating: 0x5A, count: size)
        let start = ContinuousClock.now
        for _ in 0..<count {
            try await connection.send(binary: payload)
            guard await replies.next() != nil else { throw BenchFailure("connection closed") }
        }
        let elapsed = ContinuousClock.now - start
        await connection.close()
        return elapsed.seconds
    }

    /// Opens `count` idle connections to our server (both ends in this process) and prints the resident memory
    /// each costs.
    private func idleConnectionCost(base: String, count: Int) async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = min(limit.rlim_max, rlim_t(2 * count + 512))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let before = Self.residentBytes()
        var connections: [WebSocketConnection] = []
        for _ in 0..<count { connections.append(try await WebSocketClient.connect(to: url("\(base)/echo"))) }
        let after = Self.residentBytes()
        let perConnection = Double(after - before) / Double(count) / 1024
        print(String(format: "\n%d idle connections (client and server ends in one process): %.1f KiB resident each, %d threads in all",
                     count, perConnection, Self.threadCount()))
        for connection in connections { await connection.close() }
    }

    private func url(_ text: String) throws -> URL {
        guard let url = URL(string: text) else { throw BenchFailure("bad URL \(text)") }
        return url
    }

    private static let header = "target            size      mode         messages   seconds      msg/s       MB/s"

    private static func format(_ row: Row) -> String {
        let size = row.size >= 1024 ? "\(row.size / 1024) KiB" : "\(row.size) B"
        func padded(_ text: String, _ width: Int) -> String { text.padding(toLength: width, withPad: " ", startingAt: 0) }
        return padded(row.target, 18) + padded(size, 10) + padded(row.mode, 11)
            + String(format: "%10d %9.2f %10.0f %10.1f", row.messages, row.seconds, row.messagesPerSecond, row.megabytesPerSecond)
    }

    private static func residentBytes() -> Int {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = statm.split(separator: " ")
        return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
    }

    private static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
