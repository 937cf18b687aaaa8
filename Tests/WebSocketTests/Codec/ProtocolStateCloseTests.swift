import Testing
@testable import WebSocket

/// The close handshake, started by either side, for both roles; invalid close frames; transport loss.
@Suite struct ProtocolStateCloseTests {
    typealias F = CodecFixtures
    static let roles: [WebSocketRole] = [.client, .server]

    func closeFrame(_ code: UInt16, _ reason: String = "", from sender: WebSocketRole) -> [UInt8] {
        F.frame(.close, F.closePayload(code, reason), from: sender)
    }

    // MARK: Peer-initiated

    @Test func serverEchoesThePeersCloseThenClosesTheTransport() throws {
        var state = WebSocketProtocolState(role: .server)
        let observed = try F.feed(&state, closeFrame(4000, "bye", from: .client))
        let info = WebSocketCloseInfo(code: WebSocketCloseCode(4000), reason: "bye", initiator: .peer)
        #expect(observed == [.wroteClose(4000), .closeTransport, .finished(info)])
        #expect(state.closeInfo == info)
    }

    @Test func clientEchoesThePeersCloseThenWaitsForTheServerToCloseTheTransport() throws {
        var state = WebSocketProtocolState(role: .client)
        let observed = try F.feed(&state, closeFrame(1001, "restart", from: .server))
        #expect(observed == [.wroteClose(1001), .startCloseTimer])
        #expect(state.closeInfo == nil)
        let info = WebSocketCloseInfo(code: .goingAway, reason: "restart", initiator: .peer)
        #expect(state.transportClosed() == [.finished(info)])
        #expect(state.closeInfo == info)
    }

    @Test func clientClosesTheTransportItselfWhenTheServerDoesNot() throws {
        var state = WebSocketProtocolState(role: .client)
        _ = try F.feed(&state, closeFrame(1000, from: .server))
        let info = WebSocketCloseInfo(code: .normalClosure, initiator: .peer)
        #expect(state.closeTimedOut() == [.closeTransport, .finished(info)])
        #expect(state.transportClosed() == [])
    }

    @Test(arguments: roles)
    func closeWithoutACodeIsAnsweredWith1000AndReportedAs1005(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let observed = try F.feed(&state, F.frame(.close, [], from: F.peer(of: role)))
        #expect(observed.first == .wroteClose(1000))
        _ = state.transportClosed()
        #expect(state.closeInfo == WebSocketCloseInfo(code: .noStatusReceived, initiator: .peer))
    }

    @Test(arguments: [UInt16(1000), 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999])
    func everySendableCodeIsEchoed(code: UInt16) throws {
        var state = WebSocketProtocolState(role: .server)
        #expect(try F.feed(&state, closeFrame(code, from: .client)).first == .wroteClose(code))
    }

    @Test(arguments: roles)
    func framesAfterThePeersCloseAreIgnored(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let bytes = F.text("frag", fin: false, from: peer) + closeFrame(1000, from: peer)
            + F.frame(.ping, [1], from: peer) + F.frame(.continuation, Array("ment".utf8), from: peer)
        let observed = try F.feed(&state, bytes)
        #expect(!observed.contains(.wrote(.pong, [1])))
        #expect(!observed.contains { if case .deliver = $0 { true } else { false } })
        #expect(observed.first == .wroteClose(1000))
        #expect(try F.feed(&state, F.frame(.ping, [2], from: peer)) == [])
    }

    // MARK: Locally initiated

    @Test(arguments: roles)
    func localCloseWritesOneCloseFrameAndStartsTheTimer(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        #expect(try F.observe(state.close(code: .goingAway, reason: "later"), writtenBy: role) == [.wroteClose(1001, "later"), .startCloseTimer])
        #expect(state.close(code: .normalClosure, reason: "") == [])
        #expect(!state.isOpen)
    }

    @Test func serverFinishesWhenThePeerAnswersItsClose() throws {
        var state = WebSocketProtocolState(role: .server)
        _ = state.close(code: .normalClosure, reason: "done")
        let observed = try F.feed(&state, closeFrame(1000, from: .client))
        #expect(observed == [.closeTransport, .finished(WebSocketCloseInfo(code: .normalClosure, initiator: .local))])
    }

    @Test func clientWaitsForTheTransportAfterThePeerAnswersItsClose() throws {
        var state = WebSocketProtocolState(role: .client)
        _ = state.close(code: .normalClosure, reason: "")
        #expect(try F.feed(&state, closeFrame(1000, "ok", from: .server)) == [])
        let info = WebSocketCloseInfo(code: .normalClosure, reason: "ok", initiator: .local)
        #expect(state.transportClosed() == [.finished(info)])
    }

    @Test(arguments: roles)
    func localCloseWithoutAnswerTimesOutAs1006(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        _ = state.close(code: .normalClosure, reason: "")
        let info = WebSocketCloseInfo(code: .abnormalClosure, initiator: .local)
        #expect(state.closeTimedOut() == [.closeTransport, .finished(info)])
        #expect(state.closeTimedOut() == [])
    }

    @Test(arguments: roles)
    func dataFramesAfterOurCloseAreIgnoredButPongsReported(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        _ = state.close(code: .normalClosure, reason: "")
        let bytes = F.text("late", from: peer) + F.frame(.ping, [1], from: peer) + F.frame(.pong, [2], from: peer)
            + F.frame(.text, [0xFF], from: peer)
        #expect(try F.feed(&state, bytes) == [.pong([2])])
        #expect(state.isOpen == false && state.closeInfo == nil)
    }

    @Test func unsendableLocalCodeSendsAnEmptyClose() throws {
        var state = WebSocketProtocolState(role: .server)
        #expect(try F.observe(state.close(code: .noStatusReceived, reason: "x"), writtenBy: .server) == [.wrote(.close, []), .startCloseTimer])
    }

    @Test func longCloseReasonIsCutAtACharacterBoundary() throws {
        var state = WebSocketProtocolState(role: .server)
        let observed = try F.observe(state.close(code: .normalClosure, reason: String(repeating: "é", count: 100)), writtenBy: .server)
        #expect(observed.first == .wroteClose(1000, String(repeating: "é", count: 61)))
    }

    // MARK: Invalid close frames

    @Test(arguments: roles)
    func closePayloadOfOneByteFailsWith1002(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        #expect(try F.feed(&state, F.frame(.close, [0x03], from: F.peer(of: role))) == F.failure(.invalidClosePayload))
    }

    @Test(arguments: [UInt16(0), 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65535])
    func invalidCloseCodeFailsWith1002(code: UInt16) throws {
        var state = WebSocketProtocolState(role: .server)
        #expect(try F.feed(&state, closeFrame(code, from: .client)) == F.failure(.invalidCloseCode(code)))
    }

    @Test(arguments: roles)
    func closeReasonWithInvalidUTF8FailsWith1007(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let payload = F.closePayload(1000) + [0xCE, 0xBA, 0xED, 0xA0, 0x80]
        #expect(try F.feed(&state, F.frame(.close, payload, from: F.peer(of: role))) == F.failure(.invalidCloseReason))
    }

    @Test(arguments: roles)
    func closeReasonOf123BytesIsAcceptedAnd124Rejected(role: WebSocketRole) throws {
        var accepting = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        #expect(try F.feed(&accepting, closeFrame(1000, String(repeating: "*", count: 123), from: peer)).first == .wroteClose(1000))
        var rejecting = WebSocketProtocolState(role: role)
        #expect(try F.feed(&rejecting, closeFrame(1000, String(repeating: "*", count: 124), from: peer)) == F.failure(.controlFrameTooLong))
    }

    // MARK: Sending while closing; transport loss

    @Test(arguments: roles)
    func sendingAfterOurCloseThrowsClosing(role: WebSocketRole) {
        var state = WebSocketProtocolState(role: role)
        _ = state.close(code: .normalClosure, reason: "")
        #expect(throws: WebSocketSendError.closing) { try state.send(.text("late")) }
        #expect(throws: WebSocketSendError.closing) { try state.sendPing() }
    }

    @Test func sendingAfterThePeersCloseThrowsClosing() throws {
        var state = WebSocketProtocolState(role: .client)
        _ = try F.feed(&state, closeFrame(1000, from: .server))
        #expect(throws: WebSocketSendError.closing) { try state.send(.binary([1])) }
    }

    @Test(arguments: roles)
    func sendingAfterTheConnectionFinishedThrowsClosedWithItsInfo(role: WebSocketRole) {
        var state = WebSocketProtocolState(role: role)
        _ = state.transportClosed()
        let info = WebSocketCloseInfo(code: .abnormalClosure, initiator: .transport)
        #expect(throws: WebSocketSendError.closed(info)) { try state.send(.text("x")) }
    }

    @Test(arguments: roles)
    func transportLossWithoutACloseFrameFinishesWith1006(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        _ = try F.feed(&state, F.text("partial", fin: false, from: F.peer(of: role)))
        let info = WebSocketCloseInfo(code: .abnormalClosure, initiator: .transport)
        #expect(state.transportClosed() == [.finished(info)])
        #expect(state.transportClosed() == [])
        #expect(state.receive(F.text("x", from: F.peer(of: role))) == [])
        #expect(!info.isClean)
    }

    @Test(arguments: roles)
    func transportLossAfterOurCloseFinishesWith1006(role: WebSocketRole) {
        var state = WebSocketProtocolState(role: role)
        _ = state.close(code: .normalClosure, reason: "")
        #expect(state.transportClosed() == [.finished(WebSocketCloseInfo(code: .abnormalClosure, initiator: .local))])
    }
}
