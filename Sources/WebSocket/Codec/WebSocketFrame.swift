/// One WebSocket frame. `payload` is always the application data, unmasked: the decoder unmasks it and the
/// encoder masks it with `maskingKey` when one is set.
public struct WebSocketFrame: Sendable, Hashable {
    /// Whether this is the final fragment of its message (always true for control frames).
    public var fin: Bool
    /// Extension bits; an endpoint without negotiated extensions rejects frames that set them.
    public var rsv1: Bool
    public var rsv2: Bool
    public var rsv3: Bool
    public var opcode: WebSocketOpcode
    /// The key the payload is (or was, on the wire) masked with; nil for an unmasked frame.
    public var maskingKey: WebSocketMaskingKey?
    /// The unmasked payload.
    public var payload: [UInt8]

    public init(
        fin: Bool = true, rsv1: Bool = false, rsv2: Bool = false, rsv3: Bool = false,
        opcode: WebSocketOpcode, maskingKey: WebSocketMaskingKey? = nil, payload: [UInt8] = []
    ) {
        self.fin = fin
        self.rsv1 = rsv1
        self.rsv2 = rsv2
        self.rsv3 = rsv3
        self.opcode = opcode
        self.maskingKey = maskingKey
        self.payload = payload
    }
}
