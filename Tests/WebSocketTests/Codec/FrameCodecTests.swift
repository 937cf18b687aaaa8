import Testing
@testable import WebSocket
import TestSupport

/// Frame encoding and decoding at every payload-length boundary, fed whole and byte by byte.
@Suite struct FrameCodecTests {
    static let boundaryLengths = [0, 1, 125, 126, 127, 65535, 65536, 65537]

    static func payload(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
    }

    @Test(arguments: boundaryLengths)
    func unmaskedHeaderUsesTheShortestLengthForm(length: Int) {
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: Self.payload(length)))
        switch length {
        case ...125:
            #expect(bytes[1] == UInt8(length))
            #expect(bytes.count == 2 + length)
        case ...65535:
            #expect(bytes[1] == 126)
            #expect(Int(bytes[2]) << 8 | Int(bytes[3]) == length)
            #expect(bytes.count == 4 + length)
        default:
            #expect(bytes[1] == 127)
            #expect(bytes[2..<10].reduce(0) { $0 << 8 | Int($1) } == length)
            #expect(bytes.count == 10 + length)
        }
        #expect(WebSocketFrameEncoder.headerLength(payloadLength: length, masked: false) == bytes.count - length)
    }

    @Test(arguments: boundaryLengths)
    func maskedFrameSetsMaskBitAndKeyAfterLength(length: Int) {
        let key = CodecFixtures.key
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, maskingKey: key, payload: Self.payload(length)))
        let header = WebSocketFrameEncoder.headerLength(payloadLength: length, masked: true)
        #expect(bytes.count == header + length)
        #expect(bytes[1] & 0x80 == 0x80)
        #expect(Array(bytes[(header - 4)..<header]) == key.bytes)
        var unmasked = Array(bytes[header...])
        key.apply(to: &unmasked)
        #expect(unmasked == Self.payload(length))
    }

    @Test(arguments: boundaryLengths)
    func decodesEveryLengthFromOneChunk(length: Int) throws {
        let frame = WebSocketFrame(opcode: .binary, maskingKey: CodecFixtures.key, payload: Self.payload(length))
        #expect(try CodecFixtures.decodeAll(WebSocketFrameEncoder.encode(frame), as: .server) == [frame])
    }

    @Test(arguments: [0, 1, 125, 126, 127, 65535, 65536])
    func decodesEveryLengthFedByteByByte(length: Int) throws {
        let frame = WebSocketFrame(opcode: .binary, maskingKey: CodecFixtures.key, payload: Self.payload(length))
        let bytes = WebSocketFrameEncoder.encode(frame)
        var decoder = WebSocketFrameDecoder(role: .server)
        var decoded: [WebSocketFrame] = []
        for (index, byte) in bytes.enumerated() {
            decoder.append(CollectionOfOne(byte))
            if let next = try decoder.nextFrame() {
                #expect(index == bytes.count - 1, "frame must complete only with its last byte")
                decoded.append(next)
            }
        }
        #expect(decoded == [frame])
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func acceptsNonMinimalLengthEncodings() throws {
        let twoByteForm: [UInt8] = [0x82, 0x7E, 0x00, 0x03, 1, 2, 3]
        let eightByteForm: [UInt8] = [0x82, 0x7F, 0, 0, 0, 0, 0, 0, 0, 0x02, 4, 5]
        #expect(try CodecFixtures.decodeAll(twoByteForm + eightByteForm, as: .client) == [
            WebSocketFrame(opcode: .binary, payload: [1, 2, 3]),
            WebSocketFrame(opcode: .binary, payload: [4, 5]),
        ])
    }

    @Test func decodesManyFramesFromOneChunkAndKeepsTheRemainder() throws {
        var bytes: [UInt8] = []
        for index in 0..<100 { bytes += CodecFixtures.text("message \(index)", from: .client) }
        var decoder = WebSocketFrameDecoder(role: .server)
        decoder.append(bytes + [0x81, 0x85, 0x01])
        var count = 0
        while let frame = try decoder.nextFrame() {
            #expect(frame.payload == Array("message \(count)".utf8))
            count += 1
        }
        #expect(count == 100)
        #expect(decoder.bufferedByteCount == 3)
    }

    @Test func returnsNilUntilThePayloadIsComplete() throws {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append([0x82, 0x04, 1, 2, 3] as [UInt8])
        #expect(try decoder.nextFrame() == nil)
        decoder.append([4] as [UInt8])
        #expect(try decoder.nextFrame() == WebSocketFrame(opcode: .binary, payload: [1, 2, 3, 4]))
    }

    @Test func encodeAppendsAfterExistingBytes() {
        var buffer: [UInt8] = [0xAA]
        WebSocketFrameEncoder.encode(opcode: .text, payload: Array("Hi".utf8), maskingKey: nil, into: &buffer)
        #expect(buffer == [0xAA, 0x81, 0x02, 0x48, 0x69])
    }

    @Test func encodesReservedBitsWhenAsked() {
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(rsv1: true, rsv2: false, rsv3: true, opcode: .binary))
        #expect(bytes == [0x80 | 0x40 | 0x10 | 0x02, 0x00])
    }

    @Test func maskingEightBytesAtATimeMatchesBytewiseXORAtEveryOffset() {
        var generator = SeededGenerator(seed: 42)
        let key = WebSocketMaskingKey.random(using: &generator)
        let keyBytes = key.bytes
        for count in 0..<40 {
            let source = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for offset in 0..<4 {
                let expected = source.enumerated().map { $0.element ^ keyBytes[($0.offset + offset) % 4] }
                var output = [UInt8](repeating: 0, count: count)
                output.withUnsafeMutableBytes { destination in
                    source.withUnsafeBytes { key.apply(from: $0, to: destination.baseAddress, payloadOffset: offset) }
                }
                #expect(output == expected, "count \(count) offset \(offset)")
            }
        }
    }

    @Test func maskingTwiceRestoresThePayload() {
        var bytes = Self.payload(1000)
        let key = WebSocketMaskingKey(1, 2, 3, 4)
        key.apply(to: &bytes)
        #expect(bytes != Self.payload(1000))
        key.apply(to: &bytes)
        #expect(bytes == Self.payload(1000))
    }
}
