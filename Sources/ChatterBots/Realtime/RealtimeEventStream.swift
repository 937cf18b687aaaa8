import Synchronization

/// The events of a realtime connection, in arrival order; the sequence ends when the connection has closed and
/// every event was read (then `closeReason` says why).
///
/// Meant for one consumer that reads continuously. Events wait in a buffer, and the connection never stops reading
/// its socket for them: replies (`pong`, `message.ack`) arrive on the same socket and must not queue behind unread
/// events, or a heartbeat would take a healthy connection for dead. A consumer that falls behind instead gets a
/// `RealtimeDiagnostic.eventBacklog` once `RealtimeConnectionOptions.eventBufferLimit` events wait; one that is
/// stuck (`eventBufferHardLimit` events wait) loses the connection, which closes with
/// `RealtimeCloseReason.eventBufferOverflow`, so memory stays bounded and a reconnect's sync recovers the events.
public struct RealtimeEventStream: AsyncSequence, Sendable {
    public typealias Element = RealtimeEvent
    public typealias Failure = Never

    let buffer: RealtimeEventBuffer

    public func makeAsyncIterator() -> Iterator {
        Iterator(buffer: buffer)
    }

    /// Reads the events one by one; made by `for await … in events`.
    public struct Iterator: AsyncIteratorProtocol {
        let buffer: RealtimeEventBuffer

        /// The next event; nil once the connection closed and every event was read, or when the task is cancelled.
        public mutating func next() async -> RealtimeEvent? {
            await buffer.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> RealtimeEvent? {
            await buffer.next()
        }
    }
}

/// A consumer of a connection's events that takes each batch synchronously on the reader's task, never waiting: the
/// session runtime routes events this way, saving the hand-over from the reader to a consumer task (a thread wake-up
/// per frame). Events that arrived together come as one batch, in order.
package protocol RealtimeEventSink: Sendable {
    func receive(_ events: [RealtimeEvent])
}

/// The queue behind `RealtimeEventStream`: filled by the connection's reader task, drained by the consumer. The
/// reader never waits here; the buffer tells it when the consumer is behind (a diagnostic is added to the events,
/// and the reader yields its thread after each frame) and when it is stuck (the reader closes the connection).
final class RealtimeEventBuffer: Sendable {
    private let state = Mutex(State())
    /// At this many buffered events the consumer is behind: a backlog diagnostic is queued once, and again only after
    /// the consumer has caught up (read every event).
    private let backlogLimit: Int
    /// At this many buffered events the consumer is stuck: further events are refused.
    private let hardLimit: Int

    private struct State {
        var events: [RealtimeEvent] = []
        var head = 0
        var isFinished = false
        /// True from the backlog diagnostic until the consumer has read every buffered event.
        var reportedBacklog = false
        /// True once an event was refused: nothing more is buffered.
        var overflowed = false
        var nextConsumerID = 0
        var consumers: [(id: Int, continuation: CheckedContinuation<RealtimeEvent?, Never>)] = []
        /// Set once a synchronous consumer took over (`deliver(to:)`) and the buffer has been emptied into it: the
        /// reader then hands every batch to it directly.
        var sink: (any RealtimeEventSink)?

        var bufferedCount: Int { events.count - head }

        mutating func pop() -> RealtimeEvent? {
            guard head < events.count else { return nil }
            let event = events[head]
            head += 1
            if head == events.count {
                events.removeAll(keepingCapacity: events.count <= 4096)
                head = 0
            } else if head >= 1024 && head * 2 >= events.count {
                events.removeFirst(head)
                head = 0
            }
            return event
        }
    }

    /// What became of a pushed event.
    enum PushOutcome: Equatable {
        /// Buffered or handed to a waiting consumer.
        case accepted
        /// Buffered, with at least `backlogLimit` events waiting: the reader should yield, so that a consumer that is
        /// merely starved of CPU (the reader keeps a thread busy while the socket has data) can catch up.
        case acceptedBehind
        /// Refused: `hardLimit` events wait unread. The reader closes the connection.
        case overflowed
        /// Not buffered: a sink took over meanwhile, and the reader hands it this event and every later one.
        case sinkTookOver(any RealtimeEventSink)

        static func == (lhs: PushOutcome, rhs: PushOutcome) -> Bool {
            switch (lhs, rhs) {
            case (.accepted, .accepted), (.acceptedBehind, .acceptedBehind), (.overflowed, .overflowed),
                (.sinkTookOver, .sinkTookOver): true
            default: false
            }
        }
    }

    /// The most events handed to a sink at once.
    static let maxBatch = 256

    init(backlogLimit: Int, hardLimit: Int) {
        self.backlogLimit = max(1, backlogLimit)
        self.hardLimit = max(self.backlogLimit, hardLimit)
    }

    /// Adds an event, or hands it straight to a waiting consumer; never waits. Queues a backlog diagnostic after the
    /// event that makes `backlogLimit` events wait; refuses the event once `hardLimit` wait.
    func push(_ event: RealtimeEvent) -> PushOutcome {
        let (consumer, outcome) = state.withLock { state -> (CheckedContinuation<RealtimeEvent?, Never>?, PushOutcome) in
            guard !state.isFinished, !state.overflowed else { return (nil, state.overflowed ? .overflowed : .accepted) }
            if let sink = state.sink { return (nil, .sinkTookOver(sink)) }
            if !state.consumers.isEmpty {
                return (state.consumers.removeFirst().continuation, .accepted)
            }
            guard state.bufferedCount < hardLimit else {
                state.overflowed = true
                return (nil, .overflowed)
            }
            state.events.append(event)
            guard state.bufferedCount >= backlogLimit else { return (nil, .accepted) }
            if !state.reportedBacklog {
                state.reportedBacklog = true
                state.events.append(.diagnostic(.eventBacklog(unread: state.bufferedCount, closesAt: hardLimit)))
            }
            return (nil, .acceptedBehind)
        }
        consumer?.resume(returning: event)
        return outcome
    }

    /// The synchronous consumer that took over, if any: the reader hands its batches to it instead of pushing them.
    var sink: (any RealtimeEventSink)? {
        state.withLock { $0.sink }
    }

    /// Makes `sink` the consumer: the events buffered so far are handed to it first, in order, then the reader hands
    /// it every later batch itself, so no task waits in between. Returns once the buffer is empty and `sink` took
    /// over. Only one consumer may read a buffer; after this, `next()` finds nothing.
    func deliver(to sink: any RealtimeEventSink) {
        while true {
            let backlog = state.withLock { state -> [RealtimeEvent] in
                guard state.bufferedCount > 0 else {
                    state.sink = sink
                    return []
                }
                var backlog: [RealtimeEvent] = []
                while backlog.count < Self.maxBatch, let event = state.pop() { backlog.append(event) }
                if state.bufferedCount == 0 { state.reportedBacklog = false }
                return backlog
            }
            // The reader keeps buffering while the backlog is handed over, so order holds; it hands batches over
            // directly only once the buffer is found empty under the lock.
            guard !backlog.isEmpty else { return }
            sink.receive(backlog)
        }
    }

    /// Ends the sequence after the events already buffered.
    func finish() {
        let consumers = state.withLock { state in
            state.isFinished = true
            defer { state.consumers = [] }
            return state.consumers.map(\.continuation)
        }
        for consumer in consumers { consumer.resume(returning: nil) }
    }

    func next() async -> RealtimeEvent? {
        if let ready = state.withLock({ take(&$0) }) { return ready.event }
        let id = state.withLock { state in
            defer { state.nextConsumerID += 1 }
            return state.nextConsumerID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Ready? in
                    if let ready = take(&state) { return ready }
                    if Task.isCancelled { return Ready(event: nil) }
                    state.consumers.append((id, continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: ready.event) }
            }
        } onCancel: {
            let consumer = state.withLock { state -> CheckedContinuation<RealtimeEvent?, Never>? in
                guard let index = state.consumers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.consumers.remove(at: index).continuation
            }
            consumer?.resume(returning: nil)
        }
    }

    /// What `take` found: an event, or the end (nil).
    private struct Ready {
        var event: RealtimeEvent?
    }

    /// A buffered event (or the end), nil when the consumer must wait.
    private func take(_ state: inout State) -> Ready? {
        guard let event = state.pop() else { return state.isFinished ? Ready(event: nil) : nil }
        if state.bufferedCount == 0 { state.reportedBacklog = false }
        return Ready(event: event)
    }
}
