import Foundation
import Synchronization
import Testing

@testable import ChatterBots

/// A consumer that takes events synchronously on the reader's task (`deliverEvents(to:)`), as the session runtime
/// does: it gets every event once, in order, with replies still going to their requests. The time limit is a hang
/// guard: a whole-suite run on two cores can stall a test for a minute.
@Suite("Realtime events handed to a sink", .timeLimit(.minutes(3)))
struct RealtimeEventSinkTests {
    @Test func eventsBufferedBeforeTheSinkTookOverComeFirstThenTheRestInOrder() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            for seq in 1...3 { try await peer.send(Self.receipt(seq)) }
            peer.checkpoint("three sent")
            let ping = try await peer.receive()
            try await peer.reply(to: ping, with: .pong)
            for seq in 4...6 { try await peer.send(Self.receipt(seq)) }
            await peer.close(code: 1000)
        }
        let connection = try await server.connect()
        _ = await server.checkpoint()
        let sink = RecordingSink()
        let delivery = Task { await connection.deliverEvents(to: sink) }

        try await connection.ping()
        await delivery.value

        #expect(sink.seqs == Array(1...6))
        #expect(await connection.closeReason == .normal)
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func aLongBurstReachesTheSinkInOrderInBoundedBatches() async throws {
        let count = 20_000
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            for seq in 1...count { try await peer.send(Self.receipt(seq)) }
            await peer.close(code: 1000)
        }
        let connection = try await server.connect()
        let sink = RecordingSink()

        await connection.deliverEvents(to: sink)

        #expect(sink.seqs == Array(1...count))
        #expect(sink.largestBatch <= RealtimeEventBuffer.maxBatch)
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func theDeliveryWaitEndsWhenItsTaskIsCancelledAndTheConnectionStaysOpen() async throws {
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            return await peer.waitForClose().info.code
        }
        let connection = try await server.connect()
        let delivery = Task { await connection.deliverEvents(to: RecordingSink()) }

        delivery.cancel()
        await delivery.value

        #expect(connection.isOpen)
        #expect(await connection.close() == .normal)
        #expect(try await server.scriptOutcome() == .normalClosure)
        await server.shutdown()
    }

    @Test func anEventPushedAfterTheSinkTookOverIsHandedBackForTheSinkNotBuffered() {
        let buffer = RealtimeEventBuffer(backlogLimit: 1024, hardLimit: 16_384)
        for seq in 1...600 { _ = buffer.push(Self.event(seq)) }
        let sink = RecordingSink()

        buffer.deliver(to: sink)
        let outcome = buffer.push(Self.event(601))

        #expect(sink.seqs == Array(1...600))
        #expect(sink.largestBatch == RealtimeEventBuffer.maxBatch)
        guard case .sinkTookOver = outcome else {
            Issue.record("expected the sink to take the event, got \(outcome)")
            return
        }
    }

    static func event(_ seq: Int) -> RealtimeEvent {
        .frame(ServerFrame(receipt(seq), replyTo: nil))
    }

    static func receipt(_ seq: Int) -> ServerEvent {
        .receiptUpdated(ReceiptUpdate(
            conversationId: RealtimeFixture.conversation, userId: RealtimeFixture.ben, lastDeliveredSeq: seq,
            lastReadSeq: seq - 1))
    }
}

/// Records the delivered seqs of receipt events and the largest batch.
private final class RecordingSink: RealtimeEventSink {
    private let state = Mutex((seqs: [Int](), largestBatch: 0))

    var seqs: [Int] { state.withLock { $0.seqs } }
    var largestBatch: Int { state.withLock { $0.largestBatch } }

    func receive(_ events: [RealtimeEvent]) {
        state.withLock { state in
            state.largestBatch = max(state.largestBatch, events.count)
            for case .frame(let frame) in events {
                if case .receiptUpdated(let update) = frame.event { state.seqs.append(update.lastDeliveredSeq) }
            }
        }
    }
}
