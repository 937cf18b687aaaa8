/// The opcode of a WebSocket frame (RFC 6455 §5.2); values 3-7 and 11-15 are reserved and rejected on the wire.
public enum WebSocketOpcode: UInt8, Sendable, Hashable, CaseIterable {
    case continuation = 0x0
    case text = 0x1
    case binary = 0x2
    case close = 0x8
    case ping = 0x9
    case pong = 0xA

    /// Control frames (close, ping, pong) may be interleaved with fragments, must not be fragmented and carry at most 125 bytes.
    @inlinable
    public var isControl: Bool { rawValue & 0x8 != 0 }
}
