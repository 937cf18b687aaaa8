import ChatterBots
import Foundation
import Synchronization

/// The last log records of the process, redacted as in the log, for the console's live tail: a bounded buffer that
/// `LogSink.teeing` fills, and the pages listening for new records. Recording costs an append under a lock; with no
/// page open nothing else runs.
///
/// A listener's records wait in its own bounded queue, and it is woken once when the queue stops being empty: it
/// takes them all at once (`take(_:)`), so that a burst of records reaches a page as a few batches, not one by one.
package final class ConsoleLogTail: Sendable {
    /// How many records are kept for a page that opens the tail.
    package static let capacity = 1_000
    /// How many records wait for a slow page before the oldest are dropped.
    package static let listenerBuffer = 1_000

    private struct Listener {
        var id: UInt64
        var matches: @Sendable (LogRecord) -> Bool
        var pending: [LogRecord] = []
        var wake: AsyncStream<Void>.Continuation
    }

    private struct State {
        var records: [LogRecord] = []
        /// Few: one per open page.
        var listeners: [Listener] = []
        var nextListener: UInt64 = 0
    }

    private let state = Mutex(State())
    /// What a page waits on while it gathers a burst (`ConsoleLogPart.flushInterval`): the process's clock, or a
    /// test's virtual one.
    package let clock: any ChatterClock

    package init(clock: any ChatterClock = SystemClock()) {
        self.clock = clock
    }

    /// Keeps `record` and queues it for the listeners it matches.
    package func record(_ record: LogRecord) {
        state.withLock { state in
            state.records.append(record)
            if state.records.count > Self.capacity + Self.capacity / 4 { state.records.removeFirst(state.records.count - Self.capacity) }
            // By index, so that each queue grows in place.
            for index in state.listeners.indices where state.listeners[index].matches(record) {
                state.listeners[index].pending.append(record)
                let count = state.listeners[index].pending.count
                // Dropped in chunks, as the kept records are, so that a page that does not read costs no copy per record.
                if count > Self.listenerBuffer + Self.listenerBuffer / 4 {
                    state.listeners[index].pending.removeFirst(count - Self.listenerBuffer)
                }
                if count == 1 { state.listeners[index].wake.yield() }
            }
        }
    }

    /// Starts listening for the records `matches` accepts: the kept ones that match (oldest first), and a stream that
    /// yields when records wait to be taken with `take(_:)`.
    package func listen(
        matching matches: @escaping @Sendable (LogRecord) -> Bool
    ) -> (id: UInt64, recent: [LogRecord], wakes: AsyncStream<Void>) {
        let (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        return state.withLock { state in
            state.nextListener += 1
            state.listeners.append(Listener(id: state.nextListener, matches: matches, wake: wake))
            return (state.nextListener, state.records.suffix(Self.capacity).filter(matches), wakes)
        }
    }

    /// The records waiting for listener `id`, oldest first (at most `listenerBuffer`); none wait afterwards.
    package func take(_ id: UInt64) -> [LogRecord] {
        state.withLock { state in
            guard let index = state.listeners.firstIndex(where: { $0.id == id }) else { return [] }
            let pending = state.listeners[index].pending
            state.listeners[index].pending = []
            return Array(pending.suffix(Self.listenerBuffer))
        }
    }

    package func stopListening(_ id: UInt64) {
        let listener = state.withLock { state in
            state.listeners.firstIndex { $0.id == id }.map { state.listeners.remove(at: $0) }
        }
        listener?.wake.finish()
    }
}
