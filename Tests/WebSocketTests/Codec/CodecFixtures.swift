@testable import WebSocket

/// Shared helpers for the codec tests: frame builders.
enum CodecFixtures {
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

extension CodecFixtures {
    /// An action with written bytes decoded back into frames (masking stripped), so tests can state outcomes plainly.
    enum Observed: Equatable, CustomStringConvertible {
        case wrote(WebSocketOpcode, [UInt8])
        case deliver(WebSocketMessage)
        case pong([UInt8])
        case startCloseTimer
        case closeTransport
        case finished(WebSocketCloseInfo)

        static func wroteClose(_ code: UInt16, _ reason: String = "") -> Observed {
            .wrote(.close, CodecFixtures.closePayload(code, reason))
        }

        var description: String {
            switch self {
            case .wrote(let opcode, let payload): "wrote(\(opcode), \(payload.count) bytes)"
            case .deliver(let message): "deliver(\(message))"
            case .pong(let payload): "pong(\(payload))"
            case .startCloseTimer: "startCloseTimer"
            case .closeTransport: "closeTransport"
            case .finished(let info): "finished(\(info))"
            }
        }
    }

    static func peer(of role: WebSocketRole) -> WebSocketRole {
        role == .client ? .server : .client
    }

    /// Decodes the frames an endpoint in `role` wrote, checking them as its peer would (masking rules included).
    static func observe(_ actions: [WebSocketAction], writtenBy role: WebSocketRole) throws -> [Observed] {
        try actions.flatMap { action -> [Observed] in
            switch action {
            case .write(let bytes):
                return try decodeAll(bytes, as: peer(of: role)).map { .wrote($0.opcode, $0.payload) }
            case .deliver(let message): return [.deliver(message)]
            case .pong(let payload): return [.pong(payload)]
            case .startCloseTimer: return [.startCloseTimer]
            case .closeTransport: return [.closeTransport]
            case .finished(let info): return [.finished(info)]
            }
        }
    }

    /// Feeds `bytes` to `state` and returns what it did, with its writes decoded.
    static func feed(_ state: inout WebSocketProtocolState, _ bytes: [UInt8]) throws -> [Observed] {
        try observe(state.receive(bytes), writtenBy: state.role)
    }

    /// The close-frame-then-finish sequence of a connection failed with `error`.
    static func failure(_ error: WebSocketProtocolError) -> [Observed] {
        [
            .wroteClose(error.closeCode.rawValue, error.description), .closeTransport,
            .finished(WebSocketCloseInfo(code: error.closeCode, reason: error.description, initiator: .local, error: error)),
        ]
    }
}
