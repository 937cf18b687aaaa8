/// One WebSocket frame. `payload` is always the application data, unmasked: the decoder unmasks it and the
/// encoder masks it with `maskingKey` when one is set.
public struct WebSocketFrame: Sendable, Hashable {
    /// Whether this is the final fragment of its message (always true for control frames).
    public var fin: Bool
    /// Extension bit 1 (per-message compression when negotiated); rejected by this endpoint's decoder.
    public var rsv1: Bool
    /// Extension bit 2; rejected by this endpoint's decoder.
    public var rsv2: Bool
    /// Extension bit 3; rejected by this endpoint's decoder.
    public var rsv3: Bool
    /// What the frame carries: a message fragment or a control instruction.
    public var opcode: WebSocketOpcode
    /// The key the payload is (or was, on the wire) masked with; nil for an unmasked frame.
    public var maskingKey: WebSocketMaskingKey?
    /// The unmasked payload.
    public var payload: [UInt8]

    /// Creates a frame; by default a final, unmasked frame without reserved bits.
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
