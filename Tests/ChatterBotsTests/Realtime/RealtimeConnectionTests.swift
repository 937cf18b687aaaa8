import Foundation
import Glibc
import TestSupport
import Testing

@testable import ChatterBots
@testable import WebSocket

/// The time limit is a hang guard: a whole-suite run on two cores can stall a test for most of a minute.
@Suite("Realtime connection against a scripted server", .timeLimit(.minutes(3)))
struct RealtimeConnectionTests {
    // MARK: Connecting

    @Test func connectsWithClientKeyAndTokenAndExposesSessionReady() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            return (peer.request.queryValue("clientKey"), peer.request.queryValue("token"), await peer.waitForClose().info)
        }
        let connection = try await server.connect(token: "secret-token-123")
        #expect(connection.sessionReady == ScriptedPeer.ready)
        #expect(connection.heartbeatInterval == .seconds(25))
        #expect(connection.redactedURL.contains("token=REDACTED"))
        #expect(!connection.redactedURL.contains("secret-token-123"))
        #expect(await connection.close() == .normal)

        let (clientKey, token, closeInfo) = try await server.scriptOutcome()
        #expect(clientKey == ScriptedPeer.clientKey)
        #expect(token == "secret-token-123")
        #expect(closeInfo.code == .normalClosure)
        await server.shutdown()
    }

    @Test func sessionReadyThatNeverComesTimesOutAndClosesTheSocket() async throws {
        let clock = ManualClock()
        let server = try await ScriptedChatterServer.start { peer in
            await peer.waitForClose().info
        }
        let options = RealtimeConnectionOptions(sessionReadyTimeout: .seconds(10), clock: clock)
        let attempt = Task { await server.connectionError(options: options) }
        try await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(10))

        let error = try await value(of: attempt, within: .hangGuard, "the connection attempt to fail")
        guard case .sessionReadyTimedOut(let wait)? = error else {
            Issue.record("expected sessionReadyTimedOut, got \(String(describing: error))")
            return
        }
        #expect(wait == .seconds(10))
        #expect(try await server.scriptOutcome().code == .normalClosure)
        await server.shutdown()
    }

    @Test func heartbeatIntervalFallsBackToTheSeedsWhenSessionReadyGivesNone() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            var ready = ScriptedPeer.ready
            ready.heartbeatIntervalMs = 0
            try await peer.sendReady(ready)
            await peer.waitForClose()
        }
        let connection = try await server.connect()
        #expect(connection.sessionReady.heartbeatIntervalMs == 0)
        #expect(connection.heartbeatInterval == .seconds(25))
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func cancellingConnectWhileWaitingForSessionReadyClosesTheSocket() async throws {
        let clock = ManualClock()
        let server = try await ScriptedChatterServer.start { peer in
            await peer.waitForClose().info
        }
        let attempt = Task { await server.connectionError(options: RealtimeConnectionOptions(clock: clock)) }
        try await clock.waitForSleepers(1)  // the socket is open and the session.ready wait has started
        attempt.cancel()
        guard case .cancelled? = try await value(of: attempt, within: .hangGuard, "the cancelled attempt to end") else {
            Issue.record("expected cancelled")
            return
        }
        #expect(try await server.scriptOutcome().code == .normalClosure)
        await server.shutdown()
    }

    @Test func closeBeforeSessionReadyFailsTheConnectWithTheCloseReason() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            await peer.close(code: 4001, reason: "token expired")
        }
        let error = await server.connectionError()
        #expect(error?.closeReason == .tokenInvalid)
        _ = try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func undecodableSessionReadyFailsTheConnect() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.send(raw: #"{"type":"session.ready","data":{"userId":5}}"#)
            return await peer.waitForClose().info
        }
        let error = await server.connectionError()
        guard case .invalidSessionReady(let decodingError)? = error else {
            Issue.record("expected invalidSessionReady, got \(String(describing: error))")
            return
        }
        #expect(decodingError.frameType == "session.ready")
        #expect(decodingError.field == "data.userId")
        #expect(try await server.scriptOutcome().code == .normalClosure)
        await server.shutdown()
    }

    @Test func framesBeforeSessionReadyAreTheFirstEvents() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.send(RealtimeFixture.typing(true))
            try await peer.sendReady()
            try await peer.send(RealtimeFixture.typing(false))
            await peer.waitForClose()
        }
        let connection = try await server.connect()
        #expect(await connection.nextEvents(2) == [.frame(ServerFrame(RealtimeFixture.typing(true))), .frame(ServerFrame(RealtimeFixture.typing(false)))])
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    // MARK: Requests and replies

    @Test func aHeartbeatPingCarriesAnIdAndItsPongReachesTheObserverInsteadOfTheEvents() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            let ping = try await peer.receive()
            try await peer.reply(to: ping, with: .pong)
            try await peer.send(RealtimeFixture.typing(true))
            await peer.waitForClose()
            return (ping.request, ping.id)
        }
        let connection = try await server.connect()
        let (pongs, heard) = AsyncStream.makeStream(of: Void.self)
        connection.observePongs { heard.yield() }
        try connection.sendPingWithoutWaiting()
        var iterator = pongs.makeAsyncIterator()
        await iterator.next()
        #expect(await connection.nextEvents(1) == [.frame(ServerFrame(RealtimeFixture.typing(true)))])
        #expect(connection.pendingRequestCount == 0)
        await connection.close()

        let (request, id) = try await server.scriptOutcome()
        #expect(request == .ping)
        #expect(id != nil, "the seed sets an id on every client frame that expects a reply")
        await server.shutdown()
    }

    @Test func aPongThatAnswersARequestReachesBothTheRequestAndTheObserver() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            try await peer.reply(to: try await peer.receive(), with: .pong)
            await peer.waitForClose()
        }
        let connection = try await server.connect()
        let (pongs, heard) = AsyncStream.makeStream(of: Void.self)
        connection.observePongs { heard.yield() }
        try await connection.ping()
        var iterator = pongs.makeAsyncIterator()
        await iterator.next()
        await connection.close()
        await server.shutdown()
    }


    @Test func repliesReachTheirRequestsWhateverTheOrderAndEventsStayInTheStream() async throws {
        let send = RealtimeFixture.messageSend("6f1c2c1e-6b5f-4d0e-9a3b-0a8f2d1b7c55")
        let syncResponse = SyncResponse(conversations: [
            RealtimeFixture.conversation: ConversationSync(messages: [], hasMore: false, members: [])
        ])
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            var received: [ClientFrame] = []
            for _ in 0..<3 { received.append(try await peer.receive()) }
            try await peer.send(RealtimeFixture.typing(true))
            // Replies in the reverse order of arrival, with an event between them.
            for (index, frame) in received.reversed().enumerated() {
                switch frame.request {
                case .sendMessage: try await peer.reply(to: frame, with: .messageAck(RealtimeFixture.ack(for: send, seq: 43)))
                case .syncRequest: try await peer.reply(to: frame, with: .syncResponse(syncResponse))
                default: try await peer.reply(to: frame, with: .pong)
                }
                if index == 0 { try await peer.send(RealtimeFixture.typing(false)) }
            }
            await peer.waitForClose()
            return received.map(\.id)
        }
        let connection = try await server.connect()
        async let ack = connection.sendMessage(send)
        async let sync = connection.sync(SyncRequest(conversations: [RealtimeFixture.conversation: 40]))
        async let pong: Void = connection.ping()

        #expect(try await ack == RealtimeFixture.ack(for: send, seq: 43))
        #expect(try await sync == syncResponse)
        try await pong
        #expect(await connection.nextEvents(2) == [.frame(ServerFrame(RealtimeFixture.typing(true))), .frame(ServerFrame(RealtimeFixture.typing(false)))])
        #expect(connection.pendingRequestCount == 0)
        await connection.close()

        let ids = try await server.scriptOutcome()
        #expect(Set(ids) == ["c-1", "c-2", "c-3"])
        await server.shutdown()
    }

    @Test func keptAcknowledgementsAnswerTheirSendAndKeepTheirPlaceAmongTheEvents() async throws {
        let send = RealtimeFixture.messageSend("5d2e8f10-3c4b-4a6e-8f7d-1b2c3d4e5f60")
        let ack = RealtimeFixture.ack(for: send, seq: 7)
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            let frame = try await peer.receive()
            try await peer.send(RealtimeFixture.typing(true))
            try await peer.reply(to: frame, with: .messageAck(ack))
            try await peer.send(RealtimeFixture.typing(false))
            await peer.waitForClose()
            return frame.id
        }
        let connection = try await server.connect()
        connection.keepAcknowledgementsInEvents()
        #expect(try await connection.sendMessage(send) == ack)
        let events = await connection.nextEvents(3)
        await connection.close()
        let id = try await server.scriptOutcome()
        #expect(events == [
            .frame(ServerFrame(RealtimeFixture.typing(true))),
            .frame(ServerFrame(.messageAck(ack), replyTo: id)),
            .frame(ServerFrame(RealtimeFixture.typing(false))),
        ])
        #expect(connection.pendingRequestCount == 0)
        await server.shutdown()
    }

    @Test func replyThatDoesNotComeTimesOutAndArrivesLaterAsAnEvent() async throws {
        let clock = ManualClock()
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            let ping = try await peer.receive()
            peer.checkpoint("ping received")
            _ = try await peer.receive()  // the client's signal that it saw the timeout
            try await peer.reply(to: ping, with: .pong)
            await peer.waitForClose()
        }
        let connection = try await server.connect(options: RealtimeConnectionOptions(clock: clock))
        let ping = Task { await Self.error(of: { try await connection.ping(timeout: .seconds(5)) }) }
        await server.checkpoint()
        await clock.advance(by: .seconds(5))
        guard case .replyTimedOut(let type, let id, let wait)? = try await value(of: ping, within: .hangGuard, "the ping to end") else {
            Issue.record("expected replyTimedOut")
            return
        }
        #expect(type == "ping" && id == "c-1" && wait == .seconds(5))
        #expect(connection.pendingRequestCount == 0)

        try await connection.send(.typingStop(conversationId: RealtimeFixture.conversation))
        #expect(await connection.nextEvents(1) == [.frame(ServerFrame(.pong, replyTo: "c-1"))])
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func errorReplyIsThrownAsAnAPIErrorWithItsCode() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            let frame = try await peer.receive()
            try await peer.reply(
                to: frame, with: .error(ChatterErrorBody(code: .notFriends, message: "You can only message friends.")))
            await peer.waitForClose()
        }
        let connection = try await server.connect()
        do {
            _ = try await connection.sendMessage(RealtimeFixture.messageSend("cm-1"))
            Issue.record("message.send succeeded despite the error reply")
        } catch {
            guard case .api(let apiError) = error else {
                Issue.record("expected an API error, got \(error)")
                return
            }
            #expect(apiError.code == .notFriends)
            #expect(apiError.message == "You can only message friends.")
            #expect(apiError.httpStatus == nil)
        }
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func aMalformedReplyFailsItsRequestAtOnceAndIsReported() async throws {
        let clock = ManualClock()  // never advanced: a timeout cannot be what ends the request
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            let frame = try await peer.receive()
            // The message.ack for c-1 without its `seq`.
            try await peer.send(raw: #"{"type":"message.ack","replyTo":"\#(frame.id ?? "")","data":{"clientMessageId":"cm","messageId":"m","conversationId":"k","createdAt":"2026-10-22T14:20:11.482Z"}}"#)
            await peer.waitForClose()
        }
        let connection = try await server.connect(options: RealtimeConnectionOptions(clock: clock))
        let error = await Self.error(of: { try await connection.sendMessage(RealtimeFixture.messageSend("cm")) })
        guard case .invalidReply(let decodingError)? = error else {
            Issue.record("expected invalidReply, got \(String(describing: error))")
            await connection.close()
            return
        }
        #expect(decodingError.replyTo == "c-1" && decodingError.frameType == "message.ack" && decodingError.field == "data.seq")
        #expect(connection.pendingRequestCount == 0)
        guard case .diagnostic(.malformedFrame(let reported, _))? = await connection.nextEvents(1).first else {
            Issue.record("the malformed reply was not reported in events")
            await connection.close()
            return
        }
        #expect(reported == decodingError)
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func replyOfTheWrongTypeIsReportedAsUnexpected() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            try await peer.reply(to: try await peer.receive(), with: .pong)
            await peer.waitForClose()
        }
        let connection = try await server.connect()
        do {
            _ = try await connection.sendMessage(RealtimeFixture.messageSend("cm-2"))
            Issue.record("a pong was accepted as a message.ack")
        } catch {
            guard case .unexpectedReply("message.send", "pong") = error else {
                Issue.record("expected unexpectedReply, got \(error)")
                return
            }
        }
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func sendWritesAFrameWithoutAnID() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            return try await peer.receive()
        }
        let connection = try await server.connect()
        let receipt = ReceiptPosition(conversationId: RealtimeFixture.conversation, seq: 42)
        try await connection.send(.receiptRead(receipt))
        #expect(try await server.scriptOutcome() == ClientFrame(.receiptRead(receipt)))
        #expect(await connection.closeReason == .normal)
        await server.shutdown()
    }

    @Test func sendMessagesWritesEachMessageSendFrameInOrder() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            var received: [ClientFrame] = []
            for _ in 0..<3 { received.append(try await peer.receive()) }
            return received
        }
        let connection = try await server.connect()
        let sends = (1...3).map { index in
            MessageSend(conversationId: RealtimeFixture.conversation, clientMessageId: ClientMessageID("cm-\(index)"), content: .text("reply \(index)"))
        }
        let encoded = try sends.enumerated().map { index, send in
            (encodedData: String(decoding: try JSONEncoder().encode(send), as: UTF8.self), id: "o-\(index)")
        }
        try await connection.sendMessages(encoded)
        let expected = sends.enumerated().map { index, send in ClientFrame(.sendMessage(send), id: "o-\(index)") }
        #expect(try await server.scriptOutcome() == expected)
        await server.shutdown()
    }

    @Test func requestsTheServerNeverAnswersAreRefusedWithoutSending() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            return await peer.waitForClose().unread
        }
        let connection = try await server.connect()
        do {
            _ = try await connection.request(.typingStart(conversationId: RealtimeFixture.conversation))
            Issue.record("typing.start was sent as a request")
        } catch {
            guard case .noReplyExpected("typing.start") = error else {
                Issue.record("expected noReplyExpected, got \(error)")
                return
            }
        }
        await connection.close()
        #expect(try await server.scriptOutcome().isEmpty)
        await server.shutdown()
    }

    @Test func cancellingARequestThrowsCancelled() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            _ = try await peer.receive()
            peer.checkpoint("ping received")
            await peer.waitForClose()
        }
        let connection = try await server.connect()
        let ping = Task { await Self.error(of: { try await connection.ping() }) }
        await server.checkpoint()
        ping.cancel()
        guard case .cancelled? = try await value(of: ping, within: .hangGuard, "the ping to end") else {
            Issue.record("expected cancelled")
            return
        }
        #expect(connection.pendingRequestCount == 0)
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func aRequestSettledBeforeItsFrameIsWrittenNeverReachesTheServer() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            let first = try await peer.receive()
            try await peer.reply(to: first, with: .pong)
            await peer.waitForClose()
            return first
        }
        let connection = try await server.connect()
        // A cancellation that lands between the caller's check and the write settles the request first.
        let session = connection.session
        let id = session.makeRequestID()
        try session.register(id: id, type: "message.send", timeout: .seconds(10))
        session.settle(id, with: .failure(.cancelled))
        let frame = ClientFrame(.sendMessage(RealtimeFixture.messageSend("cm-cancelled")), id: RequestID.text(id))
        await session.sendRequest(id: id, text: String(decoding: try frame.jsonData(), as: UTF8.self))
        guard case .failure(.cancelled) = await session.reply(to: id) else {
            Issue.record("the settled request did not keep its cancellation")
            return
        }
        try await connection.ping()
        await connection.close()
        #expect(try await server.scriptOutcome().request == .ping, "the cancelled message.send was not written")
        await server.shutdown()
    }

    @Test func aRequestOfACancelledTaskIsNotSent() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            let first = try await peer.receive()
            try await peer.reply(to: first, with: .pong)
            await peer.waitForClose()
            return first
        }
        let connection = try await server.connect()
        let send = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await Self.error(of: { try await connection.sendMessage(RealtimeFixture.messageSend("cm-gone")) })
        }
        guard case .cancelled? = try await value(of: send, within: .hangGuard, "the cancelled send to end") else {
            Issue.record("expected cancelled")
            return
        }
        try await connection.ping()
        await connection.close()
        #expect(try await server.scriptOutcome().request == .ping)
        await server.shutdown()
    }

    // MARK: Unread events

    @Test func repliesArriveWhileEventsWaitUnreadBeyondTheLimit() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            for _ in 0..<20 { try await peer.send(RealtimeFixture.typing(true)) }
            let ping = try await peer.receive()
            try await peer.reply(to: ping, with: .pong)
            await peer.waitForClose()
        }
        let connection = try await server.connect(options: RealtimeConnectionOptions(requestTimeout: .hangGuard, eventBufferLimit: 4))
        // Nobody reads `events`; the pong arrives after the 20 typing events on the socket.
        try await connection.ping()
        let events = await connection.nextEvents(21)
        let typing = RealtimeEvent.frame(ServerFrame(RealtimeFixture.typing(true)))
        #expect(Array(events.prefix(4)) == Array(repeating: typing, count: 4))
        #expect(events[4] == .diagnostic(.eventBacklog(unread: 4, closesAt: 64)), "the consumer is told it is behind")
        #expect(Array(events.dropFirst(5)) == Array(repeating: typing, count: 16))
        #expect(connection.isOpen)
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func aConsumerThatNeverReadsCostsTheConnectionNotUnboundedMemory() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            for _ in 0..<30 { try? await peer.send(RealtimeFixture.typing(true)) }
            return await peer.waitForClose().info
        }
        let options = RealtimeConnectionOptions(requestTimeout: .hangGuard, eventBufferLimit: 2, eventBufferHardLimit: 8)
        let connection = try await server.connect(options: options)
        #expect(await connection.closeReason == .eventBufferOverflow(limit: 8))
        #expect(await Self.error(of: { try await connection.ping() })?.closeReason == .eventBufferOverflow(limit: 8))
        let events = try await withDeadline(.hangGuard, "the event stream to end") {
            var events: [RealtimeEvent] = []
            for await event in connection.events { events.append(event) }
            return events
        }
        #expect(events.count == 8, "seven events and the backlog diagnostic were kept; the rest was refused")
        #expect(events[2] == .diagnostic(.eventBacklog(unread: 2, closesAt: 8)))
        #expect(try await server.scriptOutcome().code == .policyViolation)
        await server.shutdown()
    }

    // MARK: Unknown and malformed frames

    @Test func unknownTypesAreDeliveredAsUnknown() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            try await peer.send(raw: #"{"type":"story.posted","data":{"storyId":"s1","views":3}}"#)
            try await peer.send(RealtimeFixture.typing(true))
            await peer.waitForClose()
        }
        let connection = try await server.connect()
        #expect(
            await connection.nextEvents(2) == [
                .frame(ServerFrame(.unknown(type: "story.posted", data: ["storyId": "s1", "views": 3]))),
                .frame(ServerFrame(RealtimeFixture.typing(true))),
            ])
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func malformedFramesAreReportedAndTheSessionGoesOn() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            try await peer.send(raw: "not json at all")
            try await peer.send(raw: #"{"type":"typing","data":{"conversationId":42,"userId":"u1","isTyping":true}}"#)
            try await peer.send(raw: #"{"data":{}}"#)
            try await peer.send(binary: [1, 2, 3])
            try await peer.send(RealtimeFixture.typing(false))
            try await peer.reply(to: try await peer.receive(), with: .pong)
            await peer.waitForClose()
        }
        let connection = try await server.connect()
        let events = await connection.nextEvents(5)
        try #require(events.count == 5)

        guard case .diagnostic(.malformedFrame(let notJSON, let excerpt)) = events[0] else {
            Issue.record("expected a malformed frame, got \(events[0])")
            return
        }
        #expect(notJSON.reason == .notJSON && excerpt == "not json at all")
        guard case .diagnostic(.malformedFrame(let wrongType, _)) = events[1] else {
            Issue.record("expected a malformed frame, got \(events[1])")
            return
        }
        #expect(wrongType.frameType == "typing" && wrongType.field == "data.conversationId" && wrongType.reason == .wrongType)
        guard case .diagnostic(.malformedFrame(let noType, _)) = events[2] else {
            Issue.record("expected a malformed frame, got \(events[2])")
            return
        }
        #expect(noType.field == "type" && noType.reason == .missingValue)
        #expect(events[3] == .diagnostic(.binaryFrame(byteCount: 3)))
        #expect(events[4] == .frame(ServerFrame(RealtimeFixture.typing(false))))

        try await connection.ping()
        #expect(connection.isOpen)
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    // MARK: Closing

    @Test(arguments: [
        (UInt16(1000), "", RealtimeCloseReason.normal),
        (1001, "restarting", .serverRestarting),
        (4001, "", .tokenInvalid),
        (4002, "unknown client key", .clientKeyInvalid),
        (4003, "", .sessionRevoked),
        (4008, "30", .rateLimited(seconds: 30)),
        (4008, "later", .rateLimited(seconds: nil)),
        (4999, "custom", .other(code: 4999, reason: "custom")),
        (1011, "internal", .other(code: 1011, reason: "internal")),
    ])
    func closeCodeIsSurfacedAsItsReason(code: UInt16, reason: String, expected: RealtimeCloseReason) async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            try await peer.send(RealtimeFixture.typing(true))
            await peer.close(code: code, reason: reason)
        }
        let connection = try await server.connect()
        let events = try await withDeadline(.hangGuard, "the event stream to end") {
            var events: [RealtimeEvent] = []
            for await event in connection.events { events.append(event) }
            return events
        }
        #expect(events == [.frame(ServerFrame(RealtimeFixture.typing(true)))])
        #expect(await connection.closeReason == expected)
        #expect(!connection.isOpen)
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func serverThatVanishesIsNetworkLostAndFailsPendingRequests() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            _ = try await peer.receive()
            await peer.vanish()
        }
        let connection = try await server.connect()
        do {
            try await connection.ping()
            Issue.record("the ping succeeded on a vanished server")
        } catch {
            #expect(error.closeReason == .networkLost)
        }
        #expect(await connection.closeReason == .networkLost)
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func pendingRequestsFailWithTheCloseReasonAndLaterOnesFailAtOnce() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            _ = try await peer.receive()
            _ = try await peer.receive()
            await peer.close(code: 1001, reason: "restarting")
        }
        let connection = try await server.connect()
        async let first = Self.error(of: { try await connection.sendMessage(RealtimeFixture.messageSend("cm-3")) })
        async let second = Self.error(of: { try await connection.sync(SyncRequest(conversations: [:])) })
        #expect(await first?.closeReason == .serverRestarting)
        #expect(await second?.closeReason == .serverRestarting)
        #expect(connection.pendingRequestCount == 0)

        #expect(await Self.error(of: { try await connection.ping() })?.closeReason == .serverRestarting)
        #expect(await Self.error(of: { try await connection.send(.ping) })?.closeReason == .serverRestarting)
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func closingFailsPendingRequestsAsNormal() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            _ = try await peer.receive()
            peer.checkpoint("ping received")
            return await peer.waitForClose().info
        }
        let connection = try await server.connect()
        let ping = Task { await Self.error(of: { try await connection.ping() }) }
        await server.checkpoint()
        #expect(await connection.close() == .normal)
        #expect(try await value(of: ping, within: .hangGuard, "the ping to end")?.closeReason == .normal)
        #expect(try await server.scriptOutcome().code == .normalClosure)
        await server.shutdown()
    }

    @Test func unreachableServerIsAConnectionFailure() async throws {
        // A port bound but not listening refuses connections, and no other test's server can take it meanwhile
        // (a stopped server's port could be picked by the next one the suite starts).
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        defer { _ = Glibc.close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                Glibc.bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        try #require(bound)
        let base = "127.0.0.1:\(UInt16(bigEndian: address.sin_port))/v1"
        let configuration = ChatterServerConfiguration(
            apiBaseURL: try #require(URL(string: "http://\(base)")), webSocketURL: try #require(URL(string: "ws://\(base)/ws")),
            clientKey: ScriptedPeer.clientKey)
        do {
            _ = try await ChatterRealtimeConnection.connect(configuration: configuration, accessToken: "t")
            Issue.record("connected to a stopped server")
        } catch {
            guard case .connectionFailed = error else {
                Issue.record("expected connectionFailed, got \(error)")
                return
            }
        }
    }

    @Test func invalidURLIsReportedWithTheTokenRedacted() async throws {
        let configuration = ChatterServerConfiguration(
            apiBaseURL: URL(string: "http://127.0.0.1:1/v1")!, webSocketURL: URL(string: "ftp://127.0.0.1:1/v1/ws")!,
            clientKey: "ck")
        do {
            _ = try await ChatterRealtimeConnection.connect(configuration: configuration, accessToken: "secret-token-123")
            Issue.record("connected to an ftp URL")
        } catch {
            guard case .invalidURL(let url) = error else {
                Issue.record("expected invalidURL, got \(error)")
                return
            }
            #expect(url.contains("token=REDACTED") && !url.contains("secret-token-123"))
            #expect(!error.description.contains("secret-token-123"))
        }
    }

    /// The error `body` throws, nil if it succeeds (any error other than a `RealtimeError` is recorded as an issue).
    static func error<Value>(of body: () async throws -> Value) async -> RealtimeError? {
        do {
            _ = try await body()
            return nil
        } catch let error as RealtimeError {
            return error
        } catch {
            Issue.record("not a RealtimeError: \(error)")
            return nil
        }
    }
}
