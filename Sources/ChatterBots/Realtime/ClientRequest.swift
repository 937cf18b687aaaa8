/// Every client-to-server frame of the realtime protocol, with its typed `data`.
///
/// The sandbox decodes these as the server, so an unknown `type` decodes as `.unknown` too.
public enum ClientRequest: Hashable, Sendable {
    /// `ping`; the server answers `pong`.
    case ping
    /// `message.send`; the server answers `message.ack` or `error`.
    case sendMessage(MessageSend)
    /// `receipt.delivered`: the caller stored the conversation up to `seq`.
    case receiptDelivered(ReceiptPosition)
    /// `receipt.read`: the caller read the conversation up to `seq` (implies delivered).
    case receiptRead(ReceiptPosition)
    /// `typing.start`; repeat every 3 s while typing continues (the server stops it after 5 s).
    case typingStart(conversationId: Conversation.ID)
    /// `typing.stop`.
    case typingStop(conversationId: Conversation.ID)
    /// `sync.request`; the server answers `sync.response`.
    case syncRequest(SyncRequest)
    /// A type this version does not know, with its raw `data` (`.null` when absent).
    case unknown(type: String, data: JSONValue)

    /// The frame's `type` string.
    public var type: String {
        switch self {
        case .ping: "ping"
        case .sendMessage: "message.send"
        case .receiptDelivered: "receipt.delivered"
        case .receiptRead: "receipt.read"
        case .typingStart: "typing.start"
        case .typingStop: "typing.stop"
        case .syncRequest: "sync.request"
        case .unknown(let type, _): type
        }
    }

    /// True for the frames the server answers (`ping`, `message.send`, `sync.request`): give them an `id`.
    public var expectsReply: Bool {
        switch self {
        case .ping, .sendMessage, .syncRequest: true
        case .receiptDelivered, .receiptRead, .typingStart, .typingStop, .unknown: false
        }
    }

    init(type: String, container: KeyedDecodingContainer<FrameCodingKeys>) throws {
        switch type {
        case "ping": self = .ping
        case "message.send": self = .sendMessage(try container.decode(MessageSend.self, forKey: .data))
        case "receipt.delivered": self = .receiptDelivered(try container.decode(ReceiptPosition.self, forKey: .data))
        case "receipt.read": self = .receiptRead(try container.decode(ReceiptPosition.self, forKey: .data))
        case "typing.start":
            self = .typingStart(conversationId: try container.decode(ConversationIDPayload.self, forKey: .data).conversationId)
        case "typing.stop":
            self = .typingStop(conversationId: try container.decode(ConversationIDPayload.self, forKey: .data).conversationId)
        case "sync.request": self = .syncRequest(try container.decode(SyncRequest.self, forKey: .data))
        default: self = .unknown(type: type, data: try container.decodeIfPresent(JSONValue.self, forKey: .data) ?? .null)
        }
    }

    func encodeData(into container: inout KeyedEncodingContainer<FrameCodingKeys>) throws {
        switch self {
        case .ping: try container.encode(EmptyPayload(), forKey: .data)
        case .sendMessage(let value): try container.encode(value, forKey: .data)
        case .receiptDelivered(let value), .receiptRead(let value): try container.encode(value, forKey: .data)
        case .typingStart(let id), .typingStop(let id):
            try container.encode(ConversationIDPayload(conversationId: id), forKey: .data)
        case .syncRequest(let value): try container.encode(value, forKey: .data)
        case .unknown(_, let data): if data != .null { try container.encode(data, forKey: .data) }
        }
    }
}
