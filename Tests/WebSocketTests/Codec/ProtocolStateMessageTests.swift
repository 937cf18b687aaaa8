import Testing
@testable import WebSocket

/// Receiving messages, pings and pongs through WebSocketProtocolState, for both roles.
@Suite struct ProtocolStateMessageTests {
    typealias F = CodecFixtures
    static let roles: [WebSocketRole] = [.client, .server]

    @Test(arguments: roles)
    func deliversSingleFrameTextAndBinary(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let observed = try F.feed(&state, F.text("héllo", from: peer) + F.frame(.binary, [1, 2, 3], from: peer) + F.text("", from: peer))
        #expect(observed == [.deliver(.text("héllo")), .deliver(.binary([1, 2, 3])), .deliver(.text(""))])
    }

    @Test(arguments: roles)
    func reassemblesFragmentsWithPingsInterleavedAndPongsAtOnce(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let first = F.text("frag", fin: false, from: peer) + F.frame(.ping, Array("ping 1".utf8), from: peer)
        let second = F.frame(.continuation, Array("ment".utf8), fin: false, from: peer)
            + F.frame(.ping, Array("ping 2".utf8), from: peer) + F.frame(.continuation, Array("ed".utf8), from: peer)
        #expect(try F.feed(&state, first) == [.wrote(.pong, Array("ping 1".utf8))])
        #expect(state.pongWritten().isEmpty)
        #expect(try F.feed(&state, second) == [.wrote(.pong, Array("ping 2".utf8)), .deliver(.text("fragmented"))])
    }

    @Test(arguments: roles)
    func reassemblesFragmentedBinary(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let bytes = F.frame(.binary, [1], fin: false, from: peer) + F.frame(.continuation, [], fin: false, from: peer)
            + F.frame(.continuation, [2, 3], from: peer)
        #expect(try F.feed(&state, bytes) == [.deliver(.binary([1, 2, 3]))])
    }

    @Test(arguments: roles)
    func deliversTheSameMessagesWhenFedByteByByte(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let bytes = F.text("κόσμε", fin: false, from: peer) + F.frame(.ping, [9], from: peer)
            + F.frame(.continuation, Array(" 𝄞".utf8), from: peer) + F.frame(.binary, Array(repeating: 7, count: 300), from: peer)
        var observed: [F.Observed] = []
        for byte in bytes { observed += try F.feed(&state, [byte]) }
        #expect(observed == [.wrote(.pong, [9]), .deliver(.text("κόσμε 𝄞")), .deliver(.binary(Array(repeating: 7, count: 300)))])
        #expect(state.bufferedByteCount == 0)
    }

    @Test(arguments: roles)
    func answersEveryPingOfABurstWithItsPayload(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let payloads = (0..<10).map { Array("payload-\($0)".utf8) } + [[]]
        let observed = try F.feed(&state, payloads.flatMap { F.frame(.ping, $0, from: peer) })
        #expect(observed == payloads.map { .wrote(.pong, $0) })
    }

    /// A state with the limit on pending pongs that `WebSocketConnection` sets.
    static func pongLimited(_ role: WebSocketRole) -> WebSocketProtocolState {
        var state = WebSocketProtocolState(role: role)
        state.pendingPongLimit = WebSocketProtocolState.maximumPendingPongs
        return state
    }

    @Test(arguments: roles)
    func withoutAPongLimitEveryPingOfAFloodIsAnswered(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let count = WebSocketProtocolState.maximumPendingPongs * 3
        let observed = try F.feed(&state, (0..<count).flatMap { F.frame(.ping, [UInt8($0)], from: peer) })
        #expect(observed == (0..<count).map { .wrote(.pong, [UInt8($0)]) })
    }

    @Test(arguments: roles)
    func pingsBeyondThePendingPongsAreAnsweredOnceWithTheNewestPayload(role: WebSocketRole) throws {
        var state = Self.pongLimited(role)
        let peer = F.peer(of: role)
        let limit = WebSocketProtocolState.maximumPendingPongs
        let pings = (1...(limit + 5)).flatMap { F.frame(.ping, [UInt8($0)], from: peer) }
        #expect(try F.feed(&state, pings) == (1...limit).map { .wrote(.pong, [UInt8($0)]) })
        #expect(try F.feed(&state, F.frame(.ping, [99], from: peer)) == [])
        #expect(try F.observe(state.pongWritten(), writtenBy: role) == [.wrote(.pong, [99])])
        #expect(try F.observe(state.pongWritten(), writtenBy: role) == [])
    }

    @Test(arguments: roles)
    func aPongIsPendingUntilWrittenEvenWhenItWasTheNewestPing(role: WebSocketRole) throws {
        var state = Self.pongLimited(role)
        let peer = F.peer(of: role)
        #expect(try F.feed(&state, F.frame(.ping, [1], from: peer)) == [.wrote(.pong, [1])])
        #expect(state.isPongPending)
        #expect(state.pongWritten().isEmpty)
        #expect(!state.isPongPending)
        #expect(try F.feed(&state, F.frame(.ping, [2], from: peer)) == [.wrote(.pong, [2])])
    }

    @Test(arguments: roles)
    func anUnansweredPingIsDroppedOnceACloseIsSent(role: WebSocketRole) throws {
        var state = Self.pongLimited(role)
        let peer = F.peer(of: role)
        let pings = (0...WebSocketProtocolState.maximumPendingPongs).flatMap { F.frame(.ping, [UInt8($0)], from: peer) }
        _ = try F.feed(&state, pings)
        _ = state.close()
        #expect(state.pongWritten().isEmpty)
    }

    @Test(arguments: roles)
    func pingOf125BytesIsAnswered(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let payload = [UInt8](repeating: 0xFE, count: 125)
        #expect(try F.feed(&state, F.frame(.ping, payload, from: F.peer(of: role))) == [.wrote(.pong, payload)])
    }

    @Test(arguments: roles)
    func unsolicitedPongIsReportedAndNotAnswered(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        #expect(try F.feed(&state, F.frame(.pong, [1, 2], from: F.peer(of: role))) == [.pong([1, 2])])
        #expect(state.isOpen)
    }

    @Test func clientMasksWhatItSendsWithFreshKeys() throws {
        var state = WebSocketProtocolState(role: .client)
        let first = try state.send(.text("hi"))
        let second = try state.send(.text("hi"))
        let frames = try F.decodeAll(first + second, as: .server)
        #expect(frames.map(\.payload) == [Array("hi".utf8), Array("hi".utf8)])
        #expect(frames[0].maskingKey != nil && frames[0].maskingKey != frames[1].maskingKey)
    }

    @Test func serverSendsUnmaskedFrames() throws {
        var state = WebSocketProtocolState(role: .server)
        #expect(try state.send(.binary([1, 2])) == [0x82, 0x02, 1, 2])
        #expect(try state.send(.text("Hello")) == [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
    }

    @Test(arguments: roles)
    func sendAppendsToAnExistingBuffer(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        var buffer: [UInt8] = []
        try state.send(.text("one"), into: &buffer)
        try state.send(.binary([2]), into: &buffer)
        buffer += try state.sendPing([3])
        buffer += try state.sendPong([4])
        let frames = try F.decodeAll(buffer, as: F.peer(of: role))
        #expect(frames.map(\.opcode) == [.text, .binary, .ping, .pong])
        #expect(frames.map(\.payload) == [Array("one".utf8), [2], [3], [4]])
    }

    @Test func pingPayloadOver125BytesIsRefused() {
        var state = WebSocketProtocolState(role: .client)
        #expect(throws: WebSocketSendError.controlPayloadTooLong(126)) { try state.sendPing([UInt8](repeating: 0, count: 126)) }
    }

    @Test(arguments: roles)
    func messageOverTheSizeLimitFailsWith1009(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role, limits: WebSocketLimits(maxFrameSize: 1000, maxMessageSize: 100))
        let observed = try F.feed(&state, F.frame(.binary, [UInt8](repeating: 1, count: 101), from: F.peer(of: role)))
        #expect(observed == F.failure(.messageTooLarge(limit: 100)))
    }

    @Test(arguments: roles)
    func fragmentedMessageOverTheSizeLimitFailsAtTheFragmentThatExceedsIt(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role, limits: WebSocketLimits(maxFrameSize: 1000, maxMessageSize: 100))
        let peer = F.peer(of: role)
        let fragment = [UInt8](repeating: 0x61, count: 60)
        #expect(try F.feed(&state, F.frame(.text, fragment, fin: false, from: peer)) == [])
        // Only the header of the second fragment: the limit is known to be exceeded already.
        let second = F.frame(.continuation, fragment, from: peer)
        #expect(try F.feed(&state, Array(second.dropLast(fragment.count))) == F.failure(.messageTooLarge(limit: 100)))
    }

    @Test(arguments: roles)
    func messageExactlyAtTheSizeLimitIsDelivered(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role, limits: WebSocketLimits(maxFrameSize: 1000, maxMessageSize: 100))
        let peer = F.peer(of: role)
        let bytes = F.frame(.binary, [UInt8](repeating: 1, count: 50), fin: false, from: peer)
            + F.frame(.continuation, [UInt8](repeating: 1, count: 50), from: peer)
        #expect(try F.feed(&state, bytes) == [.deliver(.binary([UInt8](repeating: 1, count: 100)))])
    }

    @Test(arguments: roles)
    func frameOverTheFrameLimitFailsWith1009(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role, limits: WebSocketLimits(maxFrameSize: 200, maxMessageSize: 1000))
        let observed = try F.feed(&state, F.frame(.binary, [UInt8](repeating: 1, count: 201), from: F.peer(of: role)))
        #expect(observed == F.failure(.frameTooLarge(limit: 200)))
    }

    @Test(arguments: roles)
    func maxMessagesLeavesLaterFramesBufferedUntilAsked(role: WebSocketRole) throws {
        var state = WebSocketProtocolState(role: role)
        let peer = F.peer(of: role)
        let bytes = F.text("one", from: peer) + F.text("two", from: peer) + [0xC1, 0x00]  // RSV1 set: a violation after two good messages
        var actions: [WebSocketAction] = []
        state.receive(bytes, into: &actions, maxMessages: 1)
        #expect(try F.observe(actions, writtenBy: role) == [.deliver(.text("one"))])
        actions.removeAll()
        state.processBufferedFrames(into: &actions, maxMessages: 1)
        #expect(try F.observe(actions, writtenBy: role) == [.deliver(.text("two"))])
        actions.removeAll()
        state.processBufferedFrames(into: &actions, maxMessages: 1)
        #expect(try F.observe(actions, writtenBy: role) == F.failure(.reservedBitsSet))
    }
}
