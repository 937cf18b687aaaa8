import Testing
@testable import WebSocket

/// Protocol violations fail the connection with the right close code and stop delivery.
@Suite struct ProtocolStateViolationTests {
    typealias F = CodecFixtures
    static let roles: [WebSocketRole] = [.client, .server]

    @Test(arguments: roles)
    func continuationWithoutAMessageFailsWith1002(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let observed = try F.feed(&state, F.frame(.continuation, Array("x".utf8), from: F.peer(of: role)))
        #expect(observed == F.failure(.unexpectedContinuation))
    }

    @Test(arguments: roles)
    func newMessageInsideAFragmentedOneFailsWith1002(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let observed = try F.feed(&state, F.text("a", fin: false, from: peer) + F.text("b", from: peer))
        #expect(observed == F.failure(.expectedContinuation))
    }

    @Test(arguments: roles)
    func frameLevelViolationFailsWithItsCode(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        #expect(try F.feed(&state, [0x8B, 0x00]) == F.failure(.unknownOpcode(11)))
    }

    @Test func serverFailsOnAnUnmaskedClientFrame() throws {
        var state = WebSocketProtocolState(role: .server)
        #expect(try F.feed(&state, F.text("a", from: .server)) == F.failure(.maskRequired))
    }

    @Test func clientFailsOnAMaskedServerFrame() throws {
        var state = WebSocketProtocolState(role: .client)
        #expect(try F.feed(&state, F.text("a", from: .client)) == F.failure(.maskForbidden))
    }

    @Test(arguments: roles)
    func fragmentedPingFailsWith1002(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let observed = try F.feed(&state, F.frame(.ping, [1], fin: false, from: F.peer(of: role)))
        #expect(observed == F.failure(.fragmentedControlFrame))
    }

    @Test(arguments: roles)
    func invalidUTF8InASingleFrameFailsWith1007(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let observed = try F.feed(&state, F.frame(.text, [0x48, 0xED, 0xA0, 0x80, 0x49], from: F.peer(of: role)))
        #expect(observed == F.failure(.invalidUTF8))
    }

    @Test(arguments: roles)
    func invalidUTF8FailsAtTheFragmentThatBringsIt(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let valid: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xCF, 0x83, 0xCE, 0xBC, 0xCE, 0xB5]
        #expect(try F.feed(&state, F.frame(.text, valid, fin: false, from: peer)) == [])
        let observed = try F.feed(&state, F.frame(.continuation, [0xF4, 0x90, 0x80, 0x80], fin: false, from: peer))
        #expect(observed == F.failure(.invalidUTF8))
    }

    @Test(arguments: roles)
    func invalidUTF8FailsBeforeTheRestOfItsFrameArrives(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let payload: [UInt8] = [0xCE, 0xBA, 0xE1, 0xBD, 0xB9, 0xF4, 0x90, 0x80, 0x80, 0x65, 0x64, 0x69, 0x74]
        let bytes = F.frame(.text, payload, from: F.peer(of: role))
        let header = bytes.count - payload.count
        #expect(try F.feed(&state, Array(bytes[..<(header + 5)])) == [])
        #expect(try F.feed(&state, Array(bytes[(header + 5)..<(header + 7)])) == F.failure(.invalidUTF8))
    }

    @Test(arguments: roles)
    func utf8SplitAcrossFragmentsIsAccepted(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let bytes = Array("€𝄞".utf8)  // E2 82 AC F0 9D 84 9E
        let frames = F.frame(.text, Array(bytes[0..<2]), fin: false, from: peer)
            + F.frame(.continuation, Array(bytes[2..<5]), fin: false, from: peer)
            + F.frame(.continuation, Array(bytes[5...]), from: peer)
        #expect(try F.feed(&state, frames) == [.deliver(.text("€𝄞"))])
    }

    @Test(arguments: roles)
    func messageEndingInsideACharacterFailsWith1007(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let frames = F.frame(.text, [0x61], fin: false, from: peer) + F.frame(.continuation, [0xE2, 0x82], from: peer)
        #expect(try F.feed(&state, frames) == F.failure(.invalidUTF8))
        var single = WebSocketProtocolState(role: role)
        #expect(try F.feed(&single, F.frame(.text, [0xE2, 0x82], from: peer)) == F.failure(.invalidUTF8))
    }

    @Test(arguments: roles)
    func messagesBeforeAViolationAreDeliveredAndNoneAfter(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let bytes = F.text("before", from: peer) + [0xC2, 0x00] + F.text("after", from: peer)
        #expect(try F.feed(&state, bytes) == [.deliver(.text("before"))] + F.failure(.reservedBitsSet))
        #expect(try F.feed(&state, F.text("later", from: peer)) == [])
        #expect(state.closeInfo?.error == .reservedBitsSet)
    }

    @Test(arguments: roles)
    func violationAfterOurCloseClosesWithoutASecondCloseFrame(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        _ = state.close(code: .normalClosure, reason: "")
        let observed = try F.feed(&state, [0x8F, 0x00])
        let error = WebSocketProtocolError.unknownOpcode(15)
        #expect(observed == [
            .closeTransport,
            .finished(WebSocketCloseInfo(code: .protocolError, reason: error.description, initiator: .local, error: error)),
        ])
    }
}
