/// A complete WebSocket message, reassembled from its fragments.
public enum WebSocketMessage: Sendable, Hashable {
    /// A text message; its bytes were validated as UTF-8.
    case text(String)
    /// A binary message.
    case binary([UInt8])

    /// The opcode of the first frame that carries this message.
    public var opcode: WebSocketOpcode {
        switch self {
        case .text: .text
        case .binary: .binary
        }
    }
}
