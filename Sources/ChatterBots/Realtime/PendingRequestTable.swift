import Foundation
import WebSocket

/// The requests of a realtime connection that await a reply, with their deadlines: pure bookkeeping, no I/O, no
/// clock (time comes in as `now`), so correlation and timeouts are tested without sockets or sleeps.
///
/// A request is inserted before its frame is sent and only then gets its `Waiter` (a continuation), because the
/// reply may arrive in between: an outcome that finds no waiter is kept until `attach` collects it. Deadlines live
/// in a binary min-heap that is cleaned lazily (entries of settled requests are skipped when they reach the top,
/// and the whole heap is dropped whenever no request is pending), so settling a request is a dictionary removal.
struct PendingRequestTable<Waiter, Outcome> {
    /// What the table knows of a request; enough to describe a timeout.
    struct Request {
        let id: UInt64
        /// The `type` of the client frame, e.g. `message.send`.
        let type: String
        let timeout: Duration
        /// `distantFuture` for a request inserted without a deadline: it never times out.
        let deadline: Date
    }

    /// What `resolve` did with an outcome.
    enum Resolution {
        /// No such request is pending (never sent, already settled, or timed out): the caller decides what to
        /// do with the outcome, e.g. deliver a late reply as an event.
        case notPending
        /// The request's waiter is not attached yet; `attach` will return the outcome.
        case stored
        /// Resume this waiter with the outcome.
        case resume(Waiter)
    }

    private struct Entry {
        let request: Request
        var waiter: Waiter?
        var outcome: Outcome?
    }

    private var entries: [UInt64: Entry] = [:]
    private var deadlines = MinHeap<Date, UInt64>()

    /// The number of requests not settled yet (including settled ones whose outcome was not collected).
    var count: Int { entries.count }

    /// Starts tracking request `id`, due at `now + timeout`. Returns the request's deadline.
    @discardableResult
    mutating func insert(id: UInt64, type: String, timeout: Duration, now: Date) -> Date {
        let deadline = now.addingTimeInterval(timeout.clockSeconds)
        entries[id] = Entry(request: Request(id: id, type: type, timeout: timeout, deadline: deadline))
        deadlines.push(id, key: deadline)
        return deadline
    }

    /// Starts tracking request `id` with no deadline: only a reply, a cancellation or the close settles it.
    mutating func insertWithoutDeadline(id: UInt64, type: String) {
        entries[id] = Entry(request: Request(id: id, type: type, timeout: .zero, deadline: .distantFuture))
    }

    /// Attaches the waiter of request `id`. Returns the outcome at once (and forgets the request) when it was
    /// settled before the waiter came; nil when the waiter must wait. A request the table does not know has
    /// nothing to wait for: `missing` is returned.
    mutating func attach(_ waiter: Waiter, to id: UInt64, missing: @autoclosure () -> Outcome) -> Outcome? {
        guard var entry = entries[id] else { return missing() }
        if let outcome = entry.outcome {
            forget(id)
            return outcome
        }
        entry.waiter = waiter
        entries[id] = entry
        return nil
    }

    /// Whether request `id` is pending and not settled yet: only such a request's frame may still be sent.
    func isAwaitingOutcome(_ id: UInt64) -> Bool {
        guard let entry = entries[id] else { return false }
        return entry.outcome == nil
    }

    /// Settles request `id` with `outcome` (a reply, a send failure, a cancellation). Only the first outcome
    /// counts; later ones find the request settled (`.notPending`).
    mutating func resolve(_ id: UInt64, with outcome: Outcome) -> Resolution {
        guard var entry = entries[id], entry.outcome == nil else { return .notPending }
        if let waiter = entry.waiter {
            forget(id)
            return .resume(waiter)
        }
        entry.outcome = outcome
        entries[id] = entry
        return .stored
    }

    /// Forgets request `id` without an outcome (its frame could not be sent and the caller reports why itself).
    mutating func remove(_ id: UInt64) {
        forget(id)
    }

    /// The earliest deadline of a request still waiting for its outcome; nil when none is.
    mutating func nextDeadline() -> Date? {
        while let top = deadlines.min {
            if let entry = entries[top.value], entry.outcome == nil, entry.request.deadline == top.key {
                return top.key
            }
            deadlines.popMin()
        }
        return nil
    }

    /// Settles every request due at or before `now` with `timedOut(request)`; returns the waiters to resume.
    /// Requests without a waiter keep their outcome for `attach`.
    mutating func expire(now: Date, timedOut: (Request) -> Outcome) -> [(Waiter, Outcome)] {
        var resumed: [(Waiter, Outcome)] = []
        while let deadline = nextDeadline(), deadline <= now, let top = deadlines.popMin() {
            guard let entry = entries[top.value] else { continue }
            let outcome = timedOut(entry.request)
            if case .resume(let waiter) = resolve(top.value, with: outcome) { resumed.append((waiter, outcome)) }
        }
        return resumed
    }

    /// Settles every request with `outcome(request)` (the connection closed); returns the waiters to resume.
    mutating func resolveAll(_ outcome: (Request) -> Outcome) -> [(Waiter, Outcome)] {
        var resumed: [(Waiter, Outcome)] = []
        for id in Array(entries.keys) {
            guard let entry = entries[id] else { continue }
            let settled = outcome(entry.request)
            if case .resume(let waiter) = resolve(id, with: settled) { resumed.append((waiter, settled)) }
        }
        return resumed
    }

    private mutating func forget(_ id: UInt64) {
        entries.removeValue(forKey: id)
        // Every heap entry is stale once nothing is pending: drop them all instead of popping them one by one.
        if entries.isEmpty { deadlines.removeAll() }
    }
}
