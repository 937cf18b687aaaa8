import ChatterBots
import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

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
    /// Sends this request to the load server at `endpoint` and waits for its result.
    func run(against endpoint: ServerEndpoint) async throws -> FloodResult {
        guard let url = URL(string: "http://127.0.0.1:\(endpoint.port)/bench/flood") else {
            throw BenchFailure("cannot form the flood URL")
        }
        var request = URLRequest(url: url, timeoutInterval: timeoutSeconds + 60)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONEncoder().encode(self)
        // The answer comes only once the flood is over: on Linux the session's idle timeout (60 s by default)
        // applies whatever the request's, so a longer flood (the Python peer answering 250,000 messages) failed.
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeoutSeconds + 60
        configuration.timeoutIntervalForResource = timeoutSeconds + 60
        let session = URLSession(configuration: configuration)
        defer { session.finishTasksAndInvalidate() }
        let (data, response) = try await session.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw BenchFailure("the load server refused the flood: \(String(decoding: data, as: UTF8.self))")
        }
        return try JSONDecoder().decode(FloodResult.self, from: data)
    }
}
