import Testing
@testable import WebSocket

/// Each frame-level protocol violation the decoder detects, and the close code it maps to.
@Suite struct FrameViolationTests {
    func firstError(_ bytes: [UInt8], as role: WebSocketRole, maxFrameSize: Int = 1 << 24) -> WebSocketProtocolError? {
        var decoder = WebSocketFrameDecoder(role: role, maxFrameSize: maxFrameSize)
        decoder.append(bytes)
        do {
            while try decoder.nextFrame() != nil {}
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [UInt8(0x40), 0x20, 0x10, 0x70])
    func reservedBitsAreAProtocolError(bits: UInt8) {
        #expect(firstError([0x81 | bits, 0x00], as: .client) == .reservedBitsSet)
        #expect(WebSocketProtocolError.reservedBitsSet.closeCode == .protocolError)
    }

    @Test(arguments: [UInt8(3), 4, 5, 6, 7, 11, 12, 13, 14, 15])
    func reservedOpcodesAreRejected(opcode: UInt8) {
        #expect(firstError([0x80 | opcode, 0x00], as: .client) == .unknownOpcode(opcode))
    }

    @Test func serverRejectsUnmaskedClientFrame() {
        #expect(firstError([0x81, 0x01, 0x41], as: .server) == .maskRequired)
    }

    @Test func clientRejectsMaskedServerFrame() {
        #expect(firstError([0x81, 0x81, 1, 2, 3, 4, 0x41], as: .client) == .maskForbidden)
    }

    @Test func controlFrameOver125BytesIsRejected() {
        #expect(firstError([0x89, 0x7E, 0x00, 0x7E] + [UInt8](repeating: 0, count: 126), as: .client) == .controlFrameTooLong)
    }

    @Test func controlFrameOf125BytesIsAccepted() {
        #expect(firstError([0x89, 0x7D] + [UInt8](repeating: 0, count: 125), as: .client) == nil)
    }

    @Test(arguments: [WebSocketOpcode.close, .ping, .pong])
    func fragmentedControlFrameIsRejected(opcode: WebSocketOpcode) {
        #expect(firstError([opcode.rawValue, 0x00], as: .client) == .fragmentedControlFrame)
    }

    @Test func lengthWithMostSignificantBitIsRejected() {
        #expect(firstError([0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], as: .client) == .invalidPayloadLength)
    }

    @Test func frameOverTheLimitIsRejectedFromItsHeader() {
        let error = firstError([0x82, 0x7E, 0x01, 0x01], as: .client, maxFrameSize: 256)
        #expect(error == .frameTooLarge(limit: 256))
        #expect(error?.closeCode == .messageTooBig)
    }

    @Test func frameAtTheLimitIsAccepted() {
        #expect(firstError([0x82, 0x7E, 0x01, 0x00] + [UInt8](repeating: 1, count: 256), as: .client, maxFrameSize: 256) == nil)
    }

    @Test func violationIsReportedBeforeThePayloadArrives() {
        #expect(firstError([0x83, 0x7F], as: .client) == .unknownOpcode(3))
    }

    @Test func decoderKeepsReportingTheViolation() {
        var decoder = WebSocketFrameDecoder(role: .client)
        decoder.append([0xC1, 0x00] as [UInt8])
        #expect(throws: WebSocketProtocolError.reservedBitsSet) { try decoder.nextFrame() }
        #expect(throws: WebSocketProtocolError.reservedBitsSet) { try decoder.nextFrame() }
    }

    @Test func errorsMapToTheirCloseCodes() {
        #expect(WebSocketProtocolError.invalidUTF8.closeCode == .invalidFramePayloadData)
        #expect(WebSocketProtocolError.invalidCloseReason.closeCode == .invalidFramePayloadData)
        #expect(WebSocketProtocolError.messageTooLarge(limit: 1).closeCode == .messageTooBig)
        #expect(WebSocketProtocolError.frameTooLarge(limit: 1).closeCode == .messageTooBig)
        for error: WebSocketProtocolError in [
            .reservedBitsSet, .unknownOpcode(3), .maskRequired, .maskForbidden, .controlFrameTooLong,
            .fragmentedControlFrame, .unexpectedContinuation, .expectedContinuation, .invalidPayloadLength,
            .invalidCloseCode(1005), .invalidClosePayload,
        ] {
            #expect(error.closeCode == .protocolError, "\(error)")
        }
    }
}
