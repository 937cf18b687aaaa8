import ChatterBots
import Foundation
import WebSocket

/// One routed REST request: the endpoint, its path parameters, and typed access to its query and body, each
/// failing as `VALIDATION_FAILED` naming the field.
struct RESTCall: Sendable {
    var request: HTTPRequest
    var endpoint: ChatterEndpoint
    var parameters: [String: String]

    func body<Body: Decodable>(_ type: Body.Type) throws(ChatterErrorBody) -> Body {
        try RESTBodyDecoder.decode(type, from: request.body)
    }

    func parameter(_ name: String) -> String { parameters[name] ?? "" }

    func conversationId() -> Conversation.ID { Conversation.ID(parameter("conversationId")) }

    func messageId() -> Message.ID { Message.ID(parameter("messageId")) }

    func query(_ name: String) -> String? { request.queryValue(name) }

    func intQuery(_ name: String) throws(ChatterErrorBody) -> Int? {
        guard let text = query(name) else { return nil }
        guard let value = Int(text) else { throw .validation(field: name, "\(name) must be a whole number.") }
        return value
    }

    func timestampQuery(_ name: String) throws(ChatterErrorBody) -> Timestamp? {
        guard let text = query(name), !text.isEmpty else { return nil }
        do {
            return try Timestamp(iso8601: text)
        } catch {
            throw .validation(field: name, "\(name) must be an ISO 8601 time such as 2026-10-22T14:03:11.482Z.")
        }
    }

    func messagePageQuery() throws(ChatterErrorBody) -> MessagePageQuery {
        switch (try intQuery("afterSeq"), try intQuery("beforeSeq")) {
        case (let after?, nil): return .after(seq: after)
        case (nil, let before?): return .before(seq: before)
        case (nil, nil): return .latest
        case (.some, .some): throw .validation(field: "beforeSeq", "Give afterSeq or beforeSeq, not both.")
        }
    }
}
