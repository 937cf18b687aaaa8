/// Serializes frames into bytes for the wire (RFC 6455 §5.2), masking the payload when a key is given.
public enum WebSocketFrameEncoder {
    /// The number of header bytes a frame with this payload length takes: 2, 4 or 10, plus 4 when masked.
    @inlinable
    public static func headerLength(payloadLength: Int, masked: Bool) -> Int {
        let base = payloadLength <= 125 ? 2 : (payloadLength <= 0xFFFF ? 4 : 10)
        return masked ? base + 4 : base
    }

    /// Appends `frame` to `buffer`, masking its payload when `frame.maskingKey` is set.
    public static func encode(_ frame: WebSocketFrame, into buffer: inout [UInt8]) {
        frame.payload.withUnsafeBytes { payload in
            encode(
                fin: frame.fin, rsv: (frame.rsv1 ? 0x40 : 0) | (frame.rsv2 ? 0x20 : 0) | (frame.rsv3 ? 0x10 : 0),
                opcode: frame.opcode, payload: payload, maskingKey: frame.maskingKey, into: &buffer)
        }
    }

    /// Returns the bytes of `frame`, masking its payload when `frame.maskingKey` is set.
    public static func encode(_ frame: WebSocketFrame) -> [UInt8] {
        var buffer: [UInt8] = []
        encode(frame, into: &buffer)
        return buffer
    }

    /// Appends a frame carrying `payload` to `buffer`; with a key, the payload is masked while it is copied.
    public static func encode(
        fin: Bool = true, opcode: WebSocketOpcode, payload: some Collection<UInt8>,
        maskingKey: WebSocketMaskingKey?, into buffer: inout [UInt8]
    ) {
        let done: Void? = payload.withContiguousStorageIfAvailable { storage in
            encode(fin: fin, rsv: 0, opcode: opcode, payload: UnsafeRawBufferPointer(storage), maskingKey: maskingKey, into: &buffer)
        }
        if done == nil {
            Array(payload).withUnsafeBytes { storage in
                encode(fin: fin, rsv: 0, opcode: opcode, payload: storage, maskingKey: maskingKey, into: &buffer)
            }
        }
    }

    /// Appends a frame carrying the bytes at `payload` to `buffer`; with a key, the payload is masked while it
    /// is copied. `rsv` holds the reserved bits in their wire positions (0x40, 0x20, 0x10).
    public static func encode(
        fin: Bool = true, rsv: UInt8 = 0, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer,
        maskingKey: WebSocketMaskingKey?, into buffer: inout [UInt8]
    ) {
        let length = payload.count
        let header = headerLength(payloadLength: length, masked: maskingKey != nil)
        let total = header + length
        let firstByte = (fin ? 0x80 : 0) | (rsv & 0x70) | opcode.rawValue
        if buffer.isEmpty && buffer.capacity < total {
            buffer = [UInt8](unsafeUninitializedCapacity: total) { storage, initialized in
                guard let pointer = storage.baseAddress else { return }
                let base = UnsafeMutableRawPointer(pointer)
                write(firstByte: firstByte, payload: payload, maskingKey: maskingKey, headerLength: header, at: base)
                initialized = total
            }
        } else {
            let start = buffer.count
            buffer.append(contentsOf: repeatElement(0, count: total))
            buffer.withUnsafeMutableBytes { storage in
                guard let pointer = storage.baseAddress else { return }
                let base = pointer + start
                write(firstByte: firstByte, payload: payload, maskingKey: maskingKey, headerLength: header, at: base)
            }
        }
    }

    /// Writes header and (masked) payload at `base`, which has room for `headerLength + payload.count` bytes.
    @inline(__always)
    private static func write(
        firstByte: UInt8, payload: UnsafeRawBufferPointer, maskingKey: WebSocketMaskingKey?, headerLength: Int,
        at base: UnsafeMutableRawPointer
    ) {
        let length = payload.count
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        base.storeBytes(of: firstByte, as: UInt8.self)
        var offset: Int
        if length <= 125 {
            base.storeBytes(of: maskBit | UInt8(length), toByteOffset: 1, as: UInt8.self)
            offset = 2
        } else if length <= 0xFFFF {
            base.storeBytes(of: maskBit | 126, toByteOffset: 1, as: UInt8.self)
            base.storeBytes(of: UInt16(length).bigEndian, toByteOffset: 2, as: UInt16.self)
            offset = 4
        } else {
            base.storeBytes(of: maskBit | 127, toByteOffset: 1, as: UInt8.self)
            base.storeBytes(of: UInt64(length).bigEndian, toByteOffset: 2, as: UInt64.self)
            offset = 10
        }
        if let maskingKey {
            base.storeBytes(of: maskingKey.rawValue.bigEndian, toByteOffset: offset, as: UInt32.self)
            offset += 4
            maskingKey.apply(from: payload, to: base + offset, payloadOffset: 0)
        } else if length > 0, let source = payload.baseAddress {
            (base + offset).copyMemory(from: source, byteCount: length)
        }
        assert(offset == headerLength)
    }
}
