import Testing
@testable import WebSocket

/// The examples of RFC 6455 §5.7, byte for byte, in both directions.
@Suite struct RFCExampleTests {
    let hello: [UInt8] = Array("Hello".utf8)
    let key = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)

    @Test func unmaskedTextHelloEncodes() {
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, payload: hello))
        #expect(bytes == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    }

    @Test func unmaskedTextHelloDecodes() throws {
        let frames = try CodecFixtures.decodeAll([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F], as: .client)
        #expect(frames == [WebSocketFrame(opcode: .text, payload: hello)])
    }

    @Test func maskedTextHelloEncodes() {
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .text, maskingKey: key, payload: hello))
        #expect(bytes == [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
    }

    @Test func maskedTextHelloDecodesUnmasked() throws {
        let frames = try CodecFixtures.decodeAll([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58], as: .server)
        #expect(frames == [WebSocketFrame(opcode: .text, maskingKey: key, payload: hello)])
    }

    @Test func fragmentedHelloEncodesAsTwoFrames() {
        var bytes: [UInt8] = []
        WebSocketFrameEncoder.encode(WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)), into: &bytes)
        WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)), into: &bytes)
        #expect(bytes == [0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F])
    }

    @Test func fragmentedHelloDecodesAsTwoFrames() throws {
        let frames = try CodecFixtures.decodeAll([0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F], as: .client)
        #expect(frames == [
            WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
            WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
        ])
    }

    @Test func unmaskedPingHelloRoundTrips() throws {
        let wire: [UInt8] = [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]
        #expect(WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .ping, payload: hello)) == wire)
        #expect(try CodecFixtures.decodeAll(wire, as: .client) == [WebSocketFrame(opcode: .ping, payload: hello)])
    }

    @Test func maskedPongHelloRoundTrips() throws {
        let wire: [UInt8] = [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
        let frame = WebSocketFrame(opcode: .pong, maskingKey: key, payload: hello)
        #expect(WebSocketFrameEncoder.encode(frame) == wire)
        #expect(try CodecFixtures.decodeAll(wire, as: .server) == [frame])
    }

    @Test func binary256BytesUsesTwoByteLength() throws {
        let payload = (0..<256).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: payload))
        #expect(Array(bytes.prefix(4)) == [0x82, 0x7E, 0x01, 0x00])
        #expect(Array(bytes.dropFirst(4)) == payload)
        #expect(try CodecFixtures.decodeAll(bytes, as: .client) == [WebSocketFrame(opcode: .binary, payload: payload)])
    }

    @Test func binary64KiBUsesEightByteLength() throws {
        let payload = (0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: .binary, payload: payload))
        #expect(Array(bytes.prefix(10)) == [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00])
        #expect(bytes.count == 10 + 65536)
        #expect(try CodecFixtures.decodeAll(bytes, as: .client) == [WebSocketFrame(opcode: .binary, payload: payload)])
    }
}
