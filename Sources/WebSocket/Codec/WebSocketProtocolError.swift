/// A violation of RFC 6455 by the peer; the connection is failed with `closeCode` (1002, 1007 or 1009).
public enum WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// RSV1, RSV2 or RSV3 was set although no extension was negotiated.
    case reservedBitsSet
    /// The frame used a reserved opcode (3-7 or 11-15).
    case unknownOpcode(UInt8)
    /// A client sent an unmasked frame; clients must mask every frame.
    case maskRequired
    /// A server sent a masked frame; servers must not mask.
    case maskForbidden
    /// A control frame carried more than 125 bytes.
    case controlFrameTooLong
    /// A control frame had FIN cleared; control frames cannot be fragmented.
    case fragmentedControlFrame
    /// A continuation frame arrived while no fragmented message was in progress.
    case unexpectedContinuation
    /// A new text or binary frame arrived before the fragmented message in progress was finished.
    case expectedContinuation
    /// The 64-bit payload length had its most significant bit set.
    case invalidPayloadLength
    /// A text message was not valid UTF-8 (detected at the first invalid byte).
    case invalidUTF8
    /// A frame's payload exceeded `WebSocketLimits.maxFrameSize`.
    case frameTooLarge(limit: Int)
    /// A reassembled message exceeded `WebSocketLimits.maxMessageSize`.
    case messageTooLarge(limit: Int)
    /// A close frame carried a status code that may not be sent on the wire.
    case invalidCloseCode(UInt16)
    /// A close frame carried a 1-byte payload, too short for a status code.
    case invalidClosePayload
    /// A close frame's reason was not valid UTF-8.
    case invalidCloseReason

    /// The close code that reports this violation to the peer.
    public var closeCode: WebSocketCloseCode {
        switch self {
        case .invalidUTF8, .invalidCloseReason: .invalidFramePayloadData
        case .frameTooLarge, .messageTooLarge: .messageTooBig
        case .reservedBitsSet, .unknownOpcode, .maskRequired, .maskForbidden, .controlFrameTooLong,
             .fragmentedControlFrame, .unexpectedContinuation, .expectedContinuation, .invalidPayloadLength,
             .invalidCloseCode, .invalidClosePayload:
            .protocolError
        }
    }

    public var description: String {
        switch self {
        case .reservedBitsSet: "reserved bits set without a negotiated extension"
        case .unknownOpcode(let opcode): "unknown opcode \(opcode)"
        case .maskRequired: "client frame not masked"
        case .maskForbidden: "server frame masked"
        case .controlFrameTooLong: "control frame payload over 125 bytes"
        case .fragmentedControlFrame: "fragmented control frame"
        case .unexpectedContinuation: "continuation frame without a message to continue"
        case .expectedContinuation: "new data frame inside a fragmented message"
        case .invalidPayloadLength: "payload length with the most significant bit set"
        case .invalidUTF8: "invalid UTF-8 in text message"
        case .frameTooLarge(let limit): "frame larger than \(limit) bytes"
        case .messageTooLarge(let limit): "message larger than \(limit) bytes"
        case .invalidCloseCode(let code): "invalid close code \(code)"
        case .invalidClosePayload: "close payload of 1 byte"
        case .invalidCloseReason: "invalid UTF-8 in close reason"
        }
    }
}
