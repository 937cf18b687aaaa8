@testable import BotRuntime
import ChatterBots
import Foundation
import Testing
import TestSupport

/// The store and the lanes' view of it agree under every interleaving the runtime allows: messages arriving
/// duplicated, reordered and again through sync, acks of the bot's replies arriving late and twice, units committed
/// behind their handlers. A seeded walk through those events plays the runtime's part (the lane's
/// the lane's `ConversationLedger`, units committed in handler order) against a real store, and every unit must be
/// accepted: a refusal here is a reply the bot would lose.
@Suite("BotStore admission ordering under reordering")
struct AdmissionOrderingSimulationTests {
    @Test(arguments: 0..<24)
    func everyMessageIsHandledOnceInSeqOrderWhateverTheInterleaving(seed: UInt64) async throws {
        let directory = try StoreDirectory()
        let store = try await openStoreWithDirectConversation(in: directory)
        var world = EchoWorld(seed: seed)
        var steps = 0
        while !world.isFinished {
            steps += 1
            try #require(steps < 200_000, "the walk did not settle: \(world.summary)")
            try await world.step(store)
        }
        #expect(world.refusals.isEmpty, "refused units: \(world.refusals.prefix(3))")
        #expect(world.handled == world.userSeqs, "handled: \(world.handled.count) of \(world.userSeqs.count)")
        #expect(try await store.syncPositions() == [Fixture.direct: world.server.count])
        await store.close()
    }
}

/// One conversation between people and an echo bot, and the bot's runtime as the lanes see the store.
private struct EchoWorld {
    var random: SeededGenerator
    /// The server's messages, by seq - 1.
    var server: [Message] = []
    var userSeqs: [Int] = []
    let totalUserMessages = 120
    /// `message.new` frames on their way to the bot.
    var live: [Message] = []
    /// Acks on their way to the bot.
    var acks: [MessageAck] = []
    /// Outbox entries the bot sends (in order).
    var outgoing: [OutboxEntry] = []
    /// The lane: messages handed out, not run yet.
    var lane: [Message] = []
    var laneLedger = ConversationLedger()
    /// Units queued behind their handlers (the store writer's lanes).
    var units: [UnitOfWork] = []
    var handled: [Int] = []
    var refusals: [BotStoreError] = []
    var acknowledged: [ClientMessageID: Int] = [:]

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed &+ 0x5EED)
    }

    var isFinished: Bool {
        userSeqs.count == totalUserMessages && live.isEmpty && acks.isEmpty && outgoing.isEmpty && lane.isEmpty
            && units.isEmpty && handled.count == totalUserMessages
    }

    var summary: String {
        "users \(userSeqs.count) handled \(handled.count) live \(live.count) acks \(acks.count) out \(outgoing.count) lane \(lane.map(\.seq)) units \(units.count) lane ledger \(String(describing: laneLedger.cursor?.contiguous))"
    }

    func makeMessage(seq: Int, from sender: User.ID, clientMessageId: ClientMessageID? = nil) -> Message {
        Fixture.message(seq: seq, from: sender, clientMessageId: clientMessageId)
    }

    mutating func step(_ store: BotStore) async throws {
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<14 where userSeqs.count < totalUserMessages:
            // A person posts: the bot gets it live, sometimes twice, sometimes overtaken by the next one.
            let message = makeMessage(seq: server.count + 1, from: Bool.random(using: &random) ? Fixture.alice : Fixture.ben)
            server.append(message)
            userSeqs.append(message.seq)
            // Overtaken by up to a dozen later ones, as a server fanning out from several sockets does.
            let overtaken = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0...min(12, live.count), using: &random) : 0
            live.insert(message, at: live.count - overtaken)
            if Int.random(in: 0..<8, using: &random) == 0 { live.insert(message, at: Int.random(in: 0...live.count, using: &random)) }
        case 0..<30 where !live.isEmpty:
            let count = Int.random(in: 1...min(4, live.count), using: &random)
            let batch = Array(live.prefix(count))
            live.removeFirst(count)
            try await admit(batch, store)
        case 30..<42 where !acks.isEmpty:
            // Acks may overtake each other and come twice (a resend after a reconnect).
            let index = Int.random(in: 0..<min(8, acks.count), using: &random)
            let ack = acks.remove(at: index)
            if Int.random(in: 0..<10, using: &random) == 0 { acks.append(ack) }
            let report = try await store.markAcked([ack])
            laneLedger.notePassedOwn(ack.seq)
            lane += report.released
        case 42..<62 where !lane.isEmpty:
            try await runLane(store)
        case 62..<74 where !units.isEmpty:
            try await commit(store)
        case 74..<86 where !outgoing.isEmpty:
            // The server takes the bot's message: a seq now, the ack later.
            let entry = outgoing.removeFirst()
            if let seq = acknowledged[entry.id] {
                acks.append(Fixture.ack(entry.id, seq: seq))
                return
            }
            let seq = server.count + 1
            server.append(makeMessage(seq: seq, from: Fixture.bot, clientMessageId: entry.id))
            acknowledged[entry.id] = seq
            acks.append(Fixture.ack(entry.id, seq: seq))
        case 86..<90:
            // A reconnect's sync: everything after the contiguous seq, again.
            let after = try await store.syncPositions()[Fixture.direct] ?? 0
            let page = Array(server.dropFirst(after).prefix(40))
            if !page.isEmpty { try await admit(page, store) }
        case 90..<100 where lane.isEmpty && !live.isEmpty:
            try await admit(live, store)
            live = []
        default:
            if !units.isEmpty { try await commit(store) } else if !lane.isEmpty { try await runLane(store) }
        }
    }

    mutating func admit(_ batch: [Message], _ store: BotStore) async throws {
        let report = try await store.admit(batch, bot: Fixture.bot)
        for (message, admission) in zip(batch, report.admissions) {
            switch admission {
            case .deliver: lane.append(message)
            case .own: laneLedger.notePassedOwn(message.seq)
            default: break
            }
        }
        lane += report.released
    }

    /// The dispatcher's worker: the lowest seq first, run when the lane's ledger says it is next.
    mutating func runLane(_ store: BotStore) async throws {
        lane.sort { $0.seq < $1.seq }
        while let first = lane.first {
            switch laneLedger.position(of: first.seq) {
            case .handled:
                lane.removeFirst()
                continue
            case .next:
                lane.removeFirst()
                var unit = UnitOfWork(handling: first, bot: Fixture.bot)
                unit.send(.text("echo: \(first.body ?? "")"), to: Fixture.direct)
                units.append(unit)
                handled.append(first.seq)
                laneLedger.raiseContiguous(to: first.seq)
            case .outOfOrder, .unknownConversation:
                // Ask the store where the conversation is (the dispatcher's `verify`).
                if let contiguous = try await store.conversationCursor(Fixture.direct)?.contiguousSeq {
                    laneLedger.raiseContiguous(to: contiguous)
                }
            }
            return
        }
    }

    mutating func commit(_ store: BotStore) async throws {
        let count = Int.random(in: 1...units.count, using: &random)
        let batch = Array(units.prefix(count))
        units.removeFirst(count)
        for result in try await store.commit(batch) {
            switch result {
            case .success(let receipt):
                outgoing += receipt.entriesToSend
                if let contiguous = receipt.contiguousSeq { laneLedger.raiseContiguous(to: contiguous) }
                lane += receipt.released
            case .failure(let error):
                refusals.append(error)
            }
        }
    }
}
