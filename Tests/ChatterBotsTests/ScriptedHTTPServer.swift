import Foundation
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

/// The Python HTTP peer, started as a subprocess on an OS-chosen loopback port.
final class ScriptedHTTPServer: Sendable {
    let port: Int
    private let process: Process
    private let lifeline: Pipe

    private init(process: Process, lifeline: Pipe, port: Int) {
        self.process = process
        self.lifeline = lifeline
        self.port = port
    }

    static func start(_ routes: [ScriptedRoute]) async throws -> ScriptedHTTPServer {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Peers/scripted_http_server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        struct Script: Encodable { var rules: [ScriptedRoute] }
        let scriptJSON = String(decoding: try JSONEncoder().encode(Script(rules: routes)), as: UTF8.self)
        process.arguments = ["python3", script.path, scriptJSON]
        let output = Pipe()
        let lifeline = Pipe()  // never written: the peer exits when it closes with this process
        process.standardOutput = output
        process.standardInput = lifeline
        try process.run()
        // The first line is the port; read it on a Dispatch thread, never on the cooperative pool.
        let line: String = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes = Data()
                while true {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    bytes.append(chunk)
                    if bytes.contains(UInt8(ascii: "\n")) { break }
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
        guard let port = Int(line.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw PeerStartError(description: "the HTTP peer printed \"\(line)\" instead of a port")
        }
        return ScriptedHTTPServer(process: process, lifeline: lifeline, port: port)
    }

    var configuration: ChatterServerConfiguration {
        ChatterServerConfiguration(
            apiBaseURL: URL(string: "http://127.0.0.1:\(port)/v1")!,
            webSocketURL: URL(string: "ws://127.0.0.1:\(port)/v1/ws")!, clientKey: "ck_test")
    }

    /// Every request received so far, in order.
    func requests() async throws -> [RecordedRequest] {
        let url = URL(string: "http://127.0.0.1:\(port)/__requests")!
        let (data, _) = try await URLSession.shared.data(for: URLRequest(url: url))
        return try JSONDecoder().decode([RecordedRequest].self, from: data)
    }

    func stop() {
        process.terminate()
        try? lifeline.fileHandleForWriting.close()
    }
}
