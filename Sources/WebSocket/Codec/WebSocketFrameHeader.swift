/// The fixed part of a frame as parsed from the wire, before its payload (RFC 6455 §5.2).
struct WebSocketFrameHeader: Sendable, Hashable {
    var fin: Bool
    var opcode: WebSocketOpcode
    var maskingKey: WebSocketMaskingKey?
    var payloadLength: Int
    /// Bytes taken by the header itself: 2 to 14.
    var headerLength: Int
}
