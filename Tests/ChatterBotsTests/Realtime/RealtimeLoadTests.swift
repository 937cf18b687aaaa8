import Foundation
import Testing

@testable import ChatterBots

/// Many requests in flight and long bursts of events over loopback: correlation and order must hold under load.
/// The figures printed are for information (a debug build, server and client on the same two cores). The time limit
/// and the requests' timeouts are hang guards: a whole-suite run on two cores can stall a test for a minute.
@Suite("Realtime connection under load", .timeLimit(.minutes(5)))
struct RealtimeLoadTests {
    @Test func thousandsOfConcurrentSendsEachGetTheirOwnAck() async throws {
        let count = 10_000
        let window = 256
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            for seq in 1...count {
                let frame = try await peer.receive()
                guard case .sendMessage(let send) = frame.request else { throw LoadError.unexpected(frame.request.type) }
                try await peer.reply(to: frame, with: .messageAck(RealtimeFixture.ack(for: send, seq: seq)))
            }
            await peer.waitForClose()
        }
        // A request waits behind up to 255 others on two shared cores: the hang guards of `.patient`, not the default 10 s.
        let connection = try await server.connect(options: .patient)
        let start = ContinuousClock.now
        let acks = try await withThrowingTaskGroup(of: (Int, MessageAck).self) { group in
            var acks: [Int: MessageAck] = [:]
            for index in 0..<count {
                if index >= window, let (done, ack) = try await group.next() { acks[done] = ack }
                group.addTask {
                    (index, try await connection.sendMessage(RealtimeFixture.messageSend(ClientMessageID("cm-\(index)"))))
                }
            }
            for try await (done, ack) in group { acks[done] = ack }
            return acks
        }
        let elapsed = ContinuousClock.now - start
        #expect(acks.count == count)
        #expect(acks.allSatisfy { index, ack in ack.clientMessageId == ClientMessageID("cm-\(index)") })
        #expect(Set(acks.values.map(\.seq)).count == count)
        #expect(connection.pendingRequestCount == 0)
        print("realtime load: \(count) message.send/ack round trips, \(window) in flight: \(elapsed), \(Self.rate(count, elapsed)) per second")
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    @Test func aLongBurstOfEventsArrivesInOrder() async throws {
        let count = 20_000
        let server = try await ScriptedChatterServer.start { peer in
            try await peer.sendReady()
            for seq in 1...count {
                try await peer.send(.receiptUpdated(ReceiptUpdate(
                    conversationId: RealtimeFixture.conversation, userId: RealtimeFixture.ben, lastDeliveredSeq: seq,
                    lastReadSeq: seq - 1)))
            }
            await peer.waitForClose()
        }
        let connection = try await server.connect()
        let start = ContinuousClock.now
        var expected = 1
        var backlogNotes = 0
        for await event in connection.events {
            if case .diagnostic(.eventBacklog) = event {
                backlogNotes += 1  // the reader ran ahead of this loop; frames still come in order
                continue
            }
            guard case .frame(let frame) = event, case .receiptUpdated(let update) = frame.event,
                update.lastDeliveredSeq == expected
            else {
                Issue.record("event \(expected) out of order: \(event)")
                break
            }
            if expected == count { break }
            expected += 1
        }
        let elapsed = ContinuousClock.now - start
        #expect(expected == count)
        print("realtime load: \(count) events read: \(elapsed), \(Self.rate(count, elapsed)) per second, \(backlogNotes) backlog notes")
        await connection.close()
        try await server.scriptOutcome()
        await server.shutdown()
    }

    static func rate(_ count: Int, _ elapsed: Duration) -> Int {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return seconds > 0 ? Int(Double(count) / seconds) : 0
    }

    enum LoadError: Error {
        case unexpected(String)
    }
}
