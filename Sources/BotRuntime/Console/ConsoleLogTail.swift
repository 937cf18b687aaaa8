import Foundation
import Synchronization

/// The last log records of the process, redacted as in the log, for the console's live tail: a bounded buffer that
/// `LogSink.teeing` fills, and the pages listening for new records. Recording costs an append under a lock; with no
/// page open nothing else runs.
package final class ConsoleLogTail: Sendable {
    /// How many records are kept for a page that opens the tail.
    package static let capacity = 1_000
    /// How many records wait for a slow page before the oldest are dropped.
    package static let listenerBuffer = 1_000

    private struct State {
        var records: [LogRecord] = []
        var listeners: [UInt64: AsyncStream<LogRecord>.Continuation] = [:]
        var nextListener: UInt64 = 0
    }

    private let state = Mutex(State())

    package init() {}

    /// Keeps `record` and hands it to the listening pages.
    package func record(_ record: LogRecord) {
        state.withLock { state in
            state.records.append(record)
            if state.records.count > Self.capacity + Self.capacity / 4 { state.records.removeFirst(state.records.count - Self.capacity) }
            for listener in state.listeners.values { listener.yield(record) }
        }
    }

    /// The records kept (oldest first), and a stream of the records written from now on.
    package func listen() -> (id: UInt64, recent: [LogRecord], records: AsyncStream<LogRecord>) {
        let (records, sink) = AsyncStream<LogRecord>.makeStream(bufferingPolicy: .bufferingNewest(Self.listenerBuffer))
        return state.withLock { state in
            state.nextListener += 1
            state.listeners[state.nextListener] = sink
            return (state.nextListener, Array(state.records.suffix(Self.capacity)), records)
        }
    }

    package func stopListening(_ id: UInt64) {
        let sink = state.withLock { $0.listeners.removeValue(forKey: id) }
        sink?.finish()
    }
}
