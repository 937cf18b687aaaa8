import Foundation
import Synchronization
import TestSupport
import Testing
@testable import WebSocket

/// A receiver that does not read pushes back on the sender through TCP, instead of buffering without bound.
@Suite("Backpressure")
struct BackpressureTests {
    /// Polls `condition` until it holds (or fails the test after `timeout`); waits for a state, measures nothing.
    private func waitUntil(timeout: Duration = .hangGuard, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not reached within \(timeout)")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// A server on loopback, a client connected to it, and the server's side of that connection, which reads only
    /// when the test does.
    private static func connectedPair() async throws -> (HTTPServer, WebSocketConnection, WebSocketConnection) {
        let (accepted, acceptedContinuation) = AsyncStream<WebSocketConnection>.makeStream()
        let server = try await HTTPServer.start(configuration: .patient) { _ in
            .webSocket { connection in
                acceptedContinuation.yield(connection)
                _ = await connection.closeInfo
            }
        }
        let client = try await WebSocketClient.connect(
            to: #require(URL(string: "ws://127.0.0.1:\(server.port)/")), configuration: .patient)
        var acceptedIterator = accepted.makeAsyncIterator()
        return (server, client, try #require(await acceptedIterator.next()))
    }

    @Test func aSenderWaitsWhileTheReceiverDoesNotReadAndEverythingArrivesInOrder() async throws {
        let messageSize = 1 << 20
        let messageCount = 48
        let (server, client, receiver) = try await Self.connectedPair()

        let sent = Atomic<Int>(0)
        let sender = Task {
            for index in 0..<messageCount {
                try await client.send(binary: [UInt8](repeating: UInt8(index), count: messageSize))
                sent.add(1, ordering: .relaxed)
            }
        }
        // The receiver reads nothing: the sender must stop with most messages unsent.
        try await waitUntil { client.channel.queuedByteCount > client.channel.highWatermark }
        try await waitUntil { client.channel.writabilityWaiterCount == 1 }
        #expect(sent.load(ordering: .relaxed) < messageCount / 2)
        #expect(client.channel.queuedByteCount <= client.channel.highWatermark + messageSize)
        #expect(receiver.inbound.bufferedByteCount <= 2 << 20)

        var received = 0
        for await message in receiver.messages {
            #expect(message == .binary([UInt8](repeating: UInt8(received), count: messageSize)))
            received += 1
            if received == messageCount { break }
        }
        try await sender.value
        #expect(received == messageCount)
        await client.close()
        await server.shutdown()
    }

    @Test func aReceiverThatDoesNotReadStopsReadingAFloodOfEmptyMessages() async throws {
        let (server, client, receiver) = try await Self.connectedPair()
        // More empty messages than the receiver's buffer takes at its fixed charge per message.
        let flood = 2 * (1 << 20) / WebSocketMessage.bufferOverhead
        let sender = Task {
            for _ in 0..<(flood / 1000) { try await client.send([WebSocketMessage](repeating: .binary([]), count: 1000)) }
        }
        try await waitUntil { receiver.channel.isReadingPaused }
        #expect(receiver.inbound.bufferedByteCount <= (2 << 20))

        var received = 0
        for await message in receiver.messages {
            #expect(message == .binary([]))
            received += 1
            if received == flood / 1000 * 1000 { break }
        }
        try await sender.value
        #expect(!receiver.channel.isReadingPaused, "reading resumes once the buffer drained")
        await client.close()
        await server.shutdown()
    }

    @Test func aPeerThatPingsWithoutReadingGetsAFewPongsQueuedPastTheLowWatermarkAndTheNewestAnswered() async throws {
        let (server, client, receiver) = try await Self.connectedPair()
        let lastPong = Mutex<[UInt8]?>(nil)
        client.onPong { payload in lastPong.withLock { $0 = payload } }
        client.channel.setReadingPaused(true)

        // Far more pongs than the kernel's buffers hold; the message after the pings shows they were all read.
        let pingCount = 200_000
        func payload(_ index: Int) -> [UInt8] {
            withUnsafeBytes(of: UInt32(index).bigEndian, Array.init) + [UInt8](repeating: 0x70, count: 121)
        }
        for index in 0..<pingCount { try await client.ping(payload(index)) }
        try await client.send(text: "after the pings")
        var messages = receiver.messages.makeAsyncIterator()
        #expect(await messages.next() == .text("after the pings"))
        let pongFrame = 2 + 125  // the largest control frame a server writes
        #expect(receiver.channel.queuedByteCount <= receiver.channel.lowWatermark + (WebSocketProtocolState.maximumPendingPongs + 1) * pongFrame)

        client.channel.setReadingPaused(false)
        try await waitUntil { lastPong.withLock { $0 } == payload(pingCount - 1) }
        await client.close()
        await server.shutdown()
    }

    @Test func aPeerResetWhileWritesAreQueuedEndsTheConnectionWith1006() async throws {
        let (server, client, receiver) = try await Self.connectedPair()
        let sender = Task {
            while true {
                do {
                    try await client.send(binary: [UInt8](repeating: 7, count: 1 << 20))
                } catch {
                    return error
                }
            }
        }
        try await waitUntil { client.channel.queuedByteCount > 0 }
        // Closing with unread bytes makes the kernel send a reset; the client's writes then fail (ECONNRESET or
        // EPIPE), which must end the connection as 1006 and fail the pending send.
        receiver.channel.close()
        let error = await sender.value
        guard case WebSocketError.connectionClosed(let info) = error else {
            Issue.record("unexpected \(error)")
            return
        }
        #expect(info.code == .abnormalClosure)
        #expect(await client.closeInfo.code == .abnormalClosure)
        await server.shutdown()
    }

    /// Reads `property` of `connection` on its event loop.
    private func onLoop<T: Sendable>(_ connection: WebSocketConnection, _ property: @escaping @Sendable (WebSocketConnection) -> T) async -> T {
        await withCheckedContinuation { continuation in
            connection.channel.loop.execute { continuation.resume(returning: property(connection)) }
        }
    }

    @Test func framesAreTakenWithoutWaitingOnlyOnTheLoopAndWhileTheQueueHasRoom() async throws {
        let messageSize = 1 << 20
        let (server, client, receiver) = try await Self.connectedPair()

        #expect(!client.acceptsFramesOnLoop, "this task does not run on the connection's loop")
        #expect(await onLoop(client) { $0.acceptsFramesOnLoop })
        // The receiver reads nothing: frames given without waiting pile up in the queue. They are given and the
        // queue is judged in one turn of the loop, so no flush to the socket comes between.
        let (sent, acceptsPastTheWatermark) = await onLoop(client) { connection -> (Int, Bool) in
            var sent = 0
            while connection.channel.queuedByteCount <= connection.channel.highWatermark {
                guard (try? connection.sendWithoutWaiting([.binary([UInt8](repeating: UInt8(sent % 256), count: messageSize))])) != nil else { break }
                sent += 1
            }
            return (sent, connection.acceptsFramesOnLoop)
        }
        #expect(!acceptsPastTheWatermark, "past the high watermark")

        var received = 0
        for await message in receiver.messages {
            #expect(message == .binary([UInt8](repeating: UInt8(received % 256), count: messageSize)))
            received += 1
            if received == sent { break }
        }
        #expect(await onLoop(client) { $0.acceptsFramesOnLoop }, "room again once the receiver read")
        await client.close()
        await server.shutdown()
    }
}
