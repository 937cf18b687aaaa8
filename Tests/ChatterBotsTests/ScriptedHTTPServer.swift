import ChildProcesses
import Foundation
import Glibc
import TestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@testable import ChatterBots

/// One scripted answer of `Peers/scripted_http_server.py`.
struct ScriptedRoute: Encodable {
    var method: String
    var path: String
    var requestHeaders: [String: String]? = nil
    var times: Int? = nil
    var status: Int = 200
    var headers: [String: String]? = nil
    var body: JSONValue? = nil
    var rawBody: String? = nil
    /// Whether the body goes out one byte at a time, each when the test says (`ScriptedHTTPServer.trickleNextByte()`);
    /// nil sends it at once.
    var trickle: Bool? = nil
}

/// A request the peer received.
struct RecordedRequest: Decodable {
    var method: String
    var path: String
    var query: String
    var headers: [String: String]
    var body: String?
    var bodyBase64: String?

    var bodyJSON: JSONValue? { body.flatMap { $0.isEmpty ? nil : try? jsonValue($0) } }
}

struct PeerStartError: Error, CustomStringConvertible {
    var description: String
}

/// The Python HTTP peer, started as a subprocess on an OS-chosen loopback port. Its stdin carries only the test's
/// go-aheads for a trickling answer: the peer exits when it closes, with `stop()` or this process.
final class ScriptedHTTPServer: Sendable {
    let port: Int
    private let child: ChildProcess

    private init(child: ChildProcess, port: Int) {
        self.child = child
        self.port = port
    }

    static func start(_ routes: [ScriptedRoute]) async throws -> ScriptedHTTPServer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Peers/scripted_http_server.py")
        struct Script: Encodable { var rules: [ScriptedRoute] }
        let scriptJSON = String(decoding: try JSONEncoder().encode(Script(rules: routes)), as: UTF8.self)
        let child = try ChildProcess([try TestPeer.python(), script.path, scriptJSON])
        // The first line is the port.
        let line = try await child.nextLine(timeout: .hangGuard) ?? ""
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            child.kill()
            throw PeerStartError(description: "the HTTP peer printed \"\(line)\" instead of a port")
        }
        return ScriptedHTTPServer(child: child, port: port)
    }

    var configuration: ChatterServerConfiguration {
        ChatterServerConfiguration(
            apiBaseURL: URL(string: "http://127.0.0.1:\(port)/v1")!,
            webSocketURL: URL(string: "ws://127.0.0.1:\(port)/v1/ws")!, clientKey: "ck_test")
    }

    /// Every request received so far, in order.
    func requests() async throws -> [RecordedRequest] {
        let url = URL(string: "http://127.0.0.1:\(port)/__requests")!
        let (data, _) = try await URLSession.patient.data(for: URLRequest(url: url).patient)
        return try JSONDecoder().decode([RecordedRequest].self, from: data)
    }

    /// Waits until a trickling answer's head is out, its body held back.
    func waitUntilTrickling() async throws {
        try await expectLine("trickling")
    }

    /// Lets a trickling answer send its next byte, and waits until it has.
    func trickleNextByte() async throws {
        child.send(line: "next")
        try await expectLine("trickled")
    }

    private func expectLine(_ expected: String) async throws {
        guard let line = try await child.nextLine(timeout: .hangGuard) else {
            throw ProcessTestError("the HTTP peer printed nothing more (it exited), not \(expected)")
        }
        guard line == expected else { throw ProcessTestError("the HTTP peer printed \"\(line)\", not \(expected)") }
    }

    func stop() {
        child.kill(SIGTERM)
        child.closeInput()
    }
}
