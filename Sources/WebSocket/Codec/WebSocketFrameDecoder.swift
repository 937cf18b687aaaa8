/// An incremental frame parser: `append` bytes as they arrive, then call `nextFrame()` until it returns nil.
///
/// It enforces the frame-level rules of RFC 6455 §5: no reserved bits (no extensions are negotiated), no
/// reserved opcodes, control frames unfragmented and at most 125 bytes, masking by role, a 64-bit length with
/// its top bit clear, and `maxFrameSize`. Header violations are reported as soon as the header bytes arrive,
/// before the payload. Non-minimal length encodings are accepted, as the RFC allows.
public struct WebSocketFrameDecoder: Sendable {
    /// The role of the endpoint that receives these frames: a server requires masked frames, a client unmasked ones.
    public let role: WebSocketRole
    /// The largest payload accepted in one frame.
    public let maxFrameSize: Int

    /// Received bytes; those before `readIndex` are consumed.
    private var buffer: [UInt8] = []
    private var readIndex = 0

    /// Buffers larger than this are released once empty, so an idle connection does not keep a peak-sized buffer.
    private static let retainedCapacity = 1 << 16

    /// Creates a decoder for frames received by an endpoint in `role`, rejecting payloads over `maxFrameSize` bytes.
    public init(role: WebSocketRole, maxFrameSize: Int = WebSocketLimits.default.maxFrameSize) {
        self.role = role
        self.maxFrameSize = maxFrameSize
    }

    /// The number of received bytes not yet returned as frames.
    public var bufferedByteCount: Int { buffer.count - readIndex }

    /// Adds received bytes.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        compact()
        bytes.withMemoryRebound(to: UInt8.self) { buffer.append(contentsOf: $0) }
    }

    /// Adds received bytes.
    public mutating func append(_ bytes: some Sequence<UInt8>) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if done == nil {
            compact()
            buffer.append(contentsOf: bytes)
        }
    }

    /// Returns the next complete frame with its payload unmasked, nil if more bytes are needed, or throws the
    /// first protocol violation found. After an error the decoder keeps throwing it; discard the connection.
    public mutating func nextFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        guard let header = try peekHeader(), availablePayload(of: header) == header.payloadLength else { return nil }
        let payload = [UInt8](unsafeUninitializedCapacity: header.payloadLength) { storage, initialized in
            copyPayload(of: header, from: 0, count: header.payloadLength, to: storage.baseAddress)
            initialized = header.payloadLength
        }
        consume(header)
        return WebSocketFrame(fin: header.fin, opcode: header.opcode, maskingKey: header.maskingKey, payload: payload)
    }

    // MARK: - In-place access for WebSocketProtocolState

    /// Parses and validates the header of the next frame without consuming anything; nil if incomplete.
    func peekHeader() throws(WebSocketProtocolError) -> WebSocketFrameHeader? {
        let result = buffer.withUnsafeBytes { raw in
            Self.parseHeader(UnsafeRawBufferPointer(rebasing: raw[readIndex...]), role: role, maxFrameSize: maxFrameSize)
        }
        switch result {
        case .incomplete: return nil
        case .header(let header): return header
        case .violation(let error): throw error
        }
    }

    /// How many payload bytes of the frame at the read position have arrived.
    func availablePayload(of header: WebSocketFrameHeader) -> Int {
        min(header.payloadLength, buffer.count - readIndex - header.headerLength)
    }

    /// Copies `count` payload bytes, starting at payload offset `start`, unmasked, to `destination`.
    func copyPayload(of header: WebSocketFrameHeader, from start: Int, count: Int, to destination: UnsafeMutableRawPointer?) {
        guard count > 0 else { return }
        buffer.withUnsafeBytes { raw in
            let begin = readIndex + header.headerLength + start
            let source = UnsafeRawBufferPointer(rebasing: raw[begin..<(begin + count)])
            if let key = header.maskingKey {
                key.apply(from: source, to: destination, payloadOffset: start)
            } else if let destination, let base = source.baseAddress {
                destination.copyMemory(from: base, byteCount: count)
            }
        }
    }

    /// Consumes the complete frame at the read position.
    mutating func consume(_ header: WebSocketFrameHeader) {
        readIndex += header.headerLength + header.payloadLength
    }

    /// Drops consumed bytes when that is cheap: always when all are consumed, otherwise when the bytes to move
    /// are fewer than those dropped, so each byte moves at most once on average.
    private mutating func compact() {
        guard readIndex > 0 else { return }
        let remaining = buffer.count - readIndex
        if remaining == 0 {
            if buffer.capacity > Self.retainedCapacity {
                buffer = []
            } else {
                buffer.removeAll(keepingCapacity: true)
            }
            readIndex = 0
        } else if remaining <= readIndex {
            buffer.removeSubrange(0..<readIndex)
            readIndex = 0
        }
    }

    enum HeaderParseResult {
        case incomplete
        case header(WebSocketFrameHeader)
        case violation(WebSocketProtocolError)
    }

    /// Parses a header at the start of `bytes`, reporting violations as soon as the bytes that show them arrive.
    static func parseHeader(_ bytes: UnsafeRawBufferPointer, role: WebSocketRole, maxFrameSize: Int) -> HeaderParseResult {
        guard bytes.count >= 2 else { return .incomplete }
        let first = bytes[0]
        let second = bytes[1]
        if first & 0x70 != 0 { return .violation(.reservedBitsSet) }
        guard let opcode = WebSocketOpcode(rawValue: first & 0x0F) else {
            return .violation(.unknownOpcode(first & 0x0F))
        }
        let fin = first & 0x80 != 0
        let masked = second & 0x80 != 0
        let shortLength = Int(second & 0x7F)
        if opcode.isControl {
            if !fin { return .violation(.fragmentedControlFrame) }
            if shortLength > 125 { return .violation(.controlFrameTooLong) }
        }
        switch role {
        case .server where !masked: return .violation(.maskRequired)
        case .client where masked: return .violation(.maskForbidden)
        default: break
        }
        var offset = 2
        let length: Int
        switch shortLength {
        case 126:
            guard bytes.count >= 4 else { return .incomplete }
            length = Int(UInt16(bytes[2]) << 8 | UInt16(bytes[3]))
            offset = 4
        case 127:
            guard bytes.count >= 10 else { return .incomplete }
            var wide: UInt64 = 0
            for index in 2..<10 { wide = wide << 8 | UInt64(bytes[index]) }
            if wide & (1 << 63) != 0 { return .violation(.invalidPayloadLength) }
            guard wide <= UInt64(Int.max) else { return .violation(.frameTooLarge(limit: maxFrameSize)) }
            length = Int(wide)
            offset = 10
        default:
            length = shortLength
        }
        if length > maxFrameSize { return .violation(.frameTooLarge(limit: maxFrameSize)) }
        var key: WebSocketMaskingKey?
        if masked {
            guard bytes.count >= offset + 4 else { return .incomplete }
            key = WebSocketMaskingKey(bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
            offset += 4
        }
        return .header(WebSocketFrameHeader(
            fin: fin, opcode: opcode, maskingKey: key, payloadLength: length, headerLength: offset))
    }
}
