import Synchronization

/// The events of a realtime connection, in arrival order; the sequence ends when the connection has closed and
/// every event was read (then `closeReason` says why).
///
/// Meant for one consumer that reads continuously. Events wait in a buffer; when more than the configured limit
/// wait, the connection stops reading its socket until the consumer catches up, so a slow consumer slows the server
/// down through TCP instead of growing memory. Replies are read from the same socket, so a consumer that stops
/// reading events for long also delays replies beyond that limit.
public struct RealtimeEventStream: AsyncSequence, Sendable {
    public typealias Element = RealtimeEvent
    public typealias Failure = Never

    let buffer: RealtimeEventBuffer

    public func makeAsyncIterator() -> Iterator {
        Iterator(buffer: buffer)
    }

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

/// The queue behind `RealtimeEventStream`: filled by the connection's reader task, drained by the consumer.
final class RealtimeEventBuffer: Sendable {
    private let state = Mutex(State())
    /// Above this many buffered events the producer waits (`waitForRoom`) until half of them were read.
    private let limit: Int

    private struct State {
        var events: [RealtimeEvent] = []
        var head = 0
        var isFinished = false
        /// False once the connection ended: the last events are bounded, the producer never waits again.
        var appliesBackpressure = true
        var nextConsumerID = 0
        var consumers: [(id: Int, continuation: CheckedContinuation<RealtimeEvent?, Never>)] = []
        var producer: CheckedContinuation<Void, Never>?

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

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Adds an event, or hands it straight to a waiting consumer. Returns true when the buffer is over its limit:
    /// the producer should then `await waitForRoom()` before reading more.
    func push(_ event: RealtimeEvent) -> Bool {
        let (consumer, isFull) = state.withLock { state -> (CheckedContinuation<RealtimeEvent?, Never>?, Bool) in
            guard !state.isFinished else { return (nil, false) }
            if !state.consumers.isEmpty {
                return (state.consumers.removeFirst().continuation, false)
            }
            state.events.append(event)
            return (nil, state.appliesBackpressure && state.bufferedCount > limit)
        }
        consumer?.resume(returning: event)
        return isFull
    }

    /// Suspends the producer until the consumer has read half of the buffered events, or the connection ended.
    func waitForRoom() async {
        await withCheckedContinuation { continuation in
            let mustWait = state.withLock { state -> Bool in
                guard state.appliesBackpressure, !state.isFinished, state.bufferedCount > limit / 2 else { return false }
                state.producer = continuation
                return true
            }
            if !mustWait { continuation.resume() }
        }
    }

    /// The connection ended: the producer never waits again (what is left to read is bounded by the socket's buffer).
    func stopBackpressure() {
        let producer = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.appliesBackpressure = false
            defer { state.producer = nil }
            return state.producer
        }
        producer?.resume()
    }

    /// Ends the sequence after the events already buffered.
    func finish() {
        let (consumers, producer) = state.withLock { state in
            state.isFinished = true
            defer {
                state.consumers = []
                state.producer = nil
            }
            return (state.consumers.map(\.continuation), state.producer)
        }
        for consumer in consumers { consumer.resume(returning: nil) }
        producer?.resume()
    }

    func next() async -> RealtimeEvent? {
        if let ready = state.withLock({ take(&$0) }) { return deliver(ready) }
        let id = state.withLock { state in
            defer { state.nextConsumerID += 1 }
            return state.nextConsumerID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Ready? in
                    if let ready = take(&state) { return ready }
                    if Task.isCancelled { return Ready(event: nil, producer: nil) }
                    state.consumers.append((id, continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: deliver(ready)) }
            }
        } onCancel: {
            let consumer = state.withLock { state -> CheckedContinuation<RealtimeEvent?, Never>? in
                guard let index = state.consumers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.consumers.remove(at: index).continuation
            }
            consumer?.resume(returning: nil)
        }
    }

    private struct Ready {
        var event: RealtimeEvent?
        /// The producer to wake because the buffer drained to half its limit.
        var producer: CheckedContinuation<Void, Never>?
    }

    /// A buffered event (or the end), nil when the consumer must wait.
    private func take(_ state: inout State) -> Ready? {
        guard let event = state.pop() else { return state.isFinished ? Ready(event: nil, producer: nil) : nil }
        var producer: CheckedContinuation<Void, Never>?
        if state.producer != nil && state.bufferedCount <= limit / 2 {
            producer = state.producer
            state.producer = nil
        }
        return Ready(event: event, producer: producer)
    }

    private func deliver(_ ready: Ready) -> RealtimeEvent? {
        ready.producer?.resume()
        return ready.event
    }
}
