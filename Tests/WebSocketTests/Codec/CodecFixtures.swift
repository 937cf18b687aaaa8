@testable import WebSocket

/// Shared helpers for the codec tests: a seeded generator and frame builders.
enum CodecFixtures {
    /// SplitMix64: a tiny deterministic generator so property tests are reproducible from their seed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let key = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)

    /// The bytes of one frame as a peer in `sender` role would send it (clients mask with `key`).
    static func frame(
        _ opcode: WebSocketOpcode, _ payload: [UInt8] = [], fin: Bool = true, from sender: WebSocketRole
    ) -> [UInt8] {
        WebSocketFrameEncoder.encode(WebSocketFrame(
            fin: fin, opcode: opcode, maskingKey: sender == .client ? key : nil, payload: payload))
    }

    static func text(_ string: String, fin: Bool = true, from sender: WebSocketRole) -> [UInt8] {
        frame(.text, Array(string.utf8), fin: fin, from: sender)
    }

    /// A close frame payload: the big-endian code followed by the reason.
    static func closePayload(_ code: UInt16, _ reason: String = "") -> [UInt8] {
        [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)
    }

    /// Decodes every complete frame in `bytes` as an endpoint in `role` would receive them.
    static func decodeAll(_ bytes: [UInt8], as role: WebSocketRole) throws -> [WebSocketFrame] {
        var decoder = WebSocketFrameDecoder(role: role)
        decoder.append(bytes)
        var frames: [WebSocketFrame] = []
        while let frame = try decoder.nextFrame() { frames.append(frame) }
        return frames
    }
}
