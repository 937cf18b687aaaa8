import ChatterBots
import Foundation
import WebSocket

/// What the driver asks of the load server's virtual senders (`POST /bench/flood`): in each conversation, the
/// person sends `count` messages (`m<index>`, numbered from `firstNumber`) to the bot, keeping at most `window`
/// without a reply, or one every `intervalNanoseconds` when that is set (a fixed rate). The server answers once
/// every reply has arrived or `timeoutSeconds` passed.
struct FloodRequest: Codable, Sendable {
    var conversations: [Conversation.ID]
    var count: Int
    var firstNumber: Int
    var window: Int
    /// When flooding, at most this many messages of a conversation go out in one write (all its window allows).
    var burst: Int = 1
    var intervalNanoseconds: UInt64? = nil
    var timeoutSeconds: Double

    /// Whether the server can run it: numbers from 0, every one of them fitting the 40 bits a sender's key keeps
    /// (``VirtualSenders/clientMessageId(runBits:track:number:)``).
    var isWellFormed: Bool {
        count >= 0 && firstNumber >= 0 && firstNumber <= VirtualSenders.messageNumbers - count
    }
}

/// What the virtual senders saw: how long the whole flood took, and for each message the time from the server
/// sending `message.new` to the bot until the server received the bot's reply and acknowledged it.
struct FloodResult: Codable, Sendable {
    var elapsedSeconds: Double
    var sent: Int
    var replies: Int
    var duplicateReplies: Int
    /// Per message (conversation-major), nanoseconds; 0 for a message without a reply.
    var latencyNanoseconds: [UInt64]
}

extension FloodRequest {
    /// The driver's client for floods: a result carries a latency per message (about 12 bytes of JSON each), so
    /// its body may pass the default 16 MiB cap on a long run.
    private static let client = HTTPClient(
        configuration: HTTPClientConfiguration(
            parserLimits: HTTPParserLimits(maxHeaderBytes: 64 * 1024, maxBodyBytes: 1 << 30)))

    /// Sends this request to the load server at `endpoint` and waits for its result.
    ///
    /// The request goes out on the WebSocket module's `HTTPClient`, whose connection waits on the event loop
    /// without costing CPU. `URLSession` did not suit it: the answer comes only once the flood is over, which
    /// (on Linux) ran into the session's 60 s idle timeout with the default session and, with a session given a
    /// longer timeout, kept a dispatch timer firing for the whole wait: nearly a core of the driver's CPU taken
    /// from the two processes being measured.
    func run(against endpoint: ServerEndpoint) async throws -> FloodResult {
        let request = HTTPRequest(
            method: .post, target: "/bench/flood", headers: ["Content-Type": "application/json"],
            body: Array(try JSONEncoder().encode(self)))
        let origin = HTTPOrigin(isSecure: false, host: "127.0.0.1", port: endpoint.port)
        let response = try await Self.client.send(request, to: origin, timeout: .seconds(timeoutSeconds + 60))
        guard response.status == .ok else {
            throw BenchFailure("the load server refused the flood: \(String(decoding: response.body, as: UTF8.self))")
        }
        return try JSONDecoder().decode(FloodResult.self, from: Data(response.body))
    }
}
