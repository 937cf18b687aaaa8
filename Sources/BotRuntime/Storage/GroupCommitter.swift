import ChatterBots
import Foundation
import SQLite
import Synchronization

/// Commits the hot-path writes of many callers together: admissions, handler units, enqueues and acks that
/// arrive while a transaction runs wait for the next one and share it.
///
/// One drain task at a time takes the waiting requests (up to ``maxItemsPerTransaction`` items), applies
/// them in arrival order in ONE immediate transaction on the database queue, commits, and resumes every
/// caller; it keeps going while requests keep arriving, yielding the queue to other work every
/// ``maxTransactionsPerTurn`` transactions. Within a transaction each unit runs in a savepoint, so a refused
/// unit is undone alone; if the transaction itself fails (disk full, I/O error), every request in it fails
/// with that error and nothing of it is written. A request, once submitted, runs even if its caller is
/// cancelled, so the caller never sees half of it.
final class GroupCommitter: Sendable {
    enum Request: Sendable {
        case admit([Message], bot: User.ID)
        case commit([UnitOfWork])
        case enqueue([PendingSend], origin: OutboxEntry.Origin)
        case acknowledge([MessageAck])

        var itemCount: Int {
            switch self {
            case .admit(let messages, _): messages.count
            case .commit(let units): units.count
            case .enqueue(let sends, _): sends.count
            case .acknowledge(let acks): acks.count
            }
        }
    }

    enum Response: Sendable {
        case admitted(AdmissionReport)
        case committed([Result<CommitReceipt, BotStoreError>])
        case enqueued(CommitReceipt)
        case acknowledged(AckReport)
    }

    private struct Waiter: Sendable {
        var request: Request
        var continuation: CheckedContinuation<Response, any Error>
    }

    private struct State: Sendable {
        var waiters: [Waiter] = []
        var isDraining = false
    }

    static let maxItemsPerTransaction = 1024
    static let maxTransactionsPerTurn = 8

    private let state = Mutex(State())
    private let queue: DatabaseQueue
    private let clock: any ChatterClock
    private let memory: CursorMemory

    init(queue: DatabaseQueue, clock: any ChatterClock, memory: CursorMemory) {
        self.queue = queue
        self.clock = clock
        self.memory = memory
    }

    func submit(_ request: Request) async throws -> Response {
        try await withCheckedThrowingContinuation { continuation in
            let startsDrain = state.withLock { state in
                state.waiters.append(Waiter(request: request, continuation: continuation))
                guard !state.isDraining else { return false }
                state.isDraining = true
                return true
            }
            if startsDrain {
                Task { await self.drain() }
            }
        }
    }

    private func drain() async {
        while true {
            do {
                let hasMore = try await queue.writeWithoutTransaction { db in self.runTurn(db) }
                if !hasMore { return }
            } catch {
                // The database could not even be reached (it is closed): fail everything waiting.
                let waiters = state.withLock { state in
                    defer { state.waiters = []; state.isDraining = false }
                    return state.waiters
                }
                for waiter in waiters { waiter.continuation.resume(throwing: error) }
                return
            }
        }
    }

    /// Runs up to ``maxTransactionsPerTurn`` transactions on the database queue; false once nothing waits.
    private func runTurn(_ db: Database) -> Bool {
        for _ in 0..<Self.maxTransactionsPerTurn {
            guard let batch = takeBatch() else { return false }
            do {
                var responses: [Response] = []
                responses.reserveCapacity(batch.count)
                try CursorWorkspace.run(db, now: clock.now, memory: memory) { workspace in
                    for waiter in batch {
                        responses.append(try Self.apply(waiter.request, in: workspace))
                    }
                }
                for (waiter, response) in zip(batch, responses) {
                    waiter.continuation.resume(returning: response)
                }
            } catch {
                for waiter in batch { waiter.continuation.resume(throwing: error) }
            }
        }
        return true
    }

    /// The next requests to commit together, or nil (and draining stops) when none wait.
    private func takeBatch() -> [Waiter]? {
        state.withLock { state in
            guard !state.waiters.isEmpty else {
                state.isDraining = false
                return nil
            }
            var count = 0
            var items = 0
            while count < state.waiters.count && (count == 0 || items + state.waiters[count].request.itemCount <= Self.maxItemsPerTransaction) {
                items += state.waiters[count].request.itemCount
                count += 1
            }
            let batch = Array(state.waiters.prefix(count))
            state.waiters.removeFirst(count)
            return batch
        }
    }

    // MARK: - Applying requests

    private static func apply(_ request: Request, in workspace: CursorWorkspace) throws -> Response {
        switch request {
        case .admit(let messages, let bot):
            let admissions = try workspace.admit(messages, bot: bot)
            var released: [Message] = []
            for conversation in Set(messages.map(\.conversationId)) {
                released += try workspace.release(conversation)
            }
            return .admitted(AdmissionReport(admissions: admissions, released: released))
        case .commit(let units):
            var results: [Result<CommitReceipt, BotStoreError>] = []
            results.reserveCapacity(units.count)
            for unit in units {
                do {
                    results.append(.success(try workspace.unit { try UnitCommit.apply(unit, in: workspace) }))
                } catch let error as BotStoreError {
                    results.append(.failure(error))
                } catch let error as CursorWorkspace.TransactionLost {
                    throw error.underlying
                } catch {
                    results.append(.failure(.storage(operation: "commit a unit", underlying: error)))
                }
            }
            return .committed(results)
        case .enqueue(let sends, let origin):
            let (entries, created) = try OutboxWrites.insert(sends, origin: origin, in: workspace)
            return .enqueued(CommitReceipt(outboxEntries: entries, createdEntries: created, contiguousSeq: nil, job: nil, released: []))
        case .acknowledge(let acks):
            return .acknowledged(try OutboxWrites.acknowledge(acks, in: workspace))
        }
    }
}
