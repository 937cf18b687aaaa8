import Synchronization

/// The messages a `WebSocketConnection` receives, in order; the sequence ends when the connection closes.
///
/// Messages wait in a buffer until read. When more than `highWatermark` bytes wait (each message is charged a
/// fixed overhead besides its payload), the connection stops reading its socket, so a slow consumer slows the peer
/// down through TCP instead of growing memory without bound.
/// Meant for one consumer; with several, each message goes to exactly one of them.
public struct WebSocketInboundStream: AsyncSequence, Sendable {
    public typealias Element = WebSocketMessage
    public typealias Failure = Never

    let buffer: InboundMessageBuffer

    public func makeAsyncIterator() -> Iterator {
        Iterator(buffer: buffer)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let buffer: InboundMessageBuffer

        /// The next message, or nil once the connection has closed and every message was read (or the task was cancelled).
        public mutating func next() async -> WebSocketMessage? {
            await buffer.next()
        }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> WebSocketMessage? {
            await buffer.next()
        }

        /// The next message if one has arrived already, without waiting; nil when none waits. A consumer that
        /// handles a burst as a whole (one reply write for all of it) takes the rest of the burst with this.
        public mutating func nextBuffered() -> WebSocketMessage? {
            buffer.nextBuffered()
        }
    }
}

/// An inbound buffer's decision to stop (`paused`) or resume reading its socket, numbered in the order the buffer
/// made it, so that the channel can tell a late one from the latest.
struct ReadPauseDecision: Sendable, Equatable {
    var paused: Bool
    var number: UInt64
}

/// The queue behind `WebSocketInboundStream`: filled on the event loop, drained by the consumer's task.
final class InboundMessageBuffer: Sendable {
    private let state = Mutex(State())
    private let highWatermark: Int
    private let lowWatermark: Int
    /// Told to stop reading the socket or to resume; called outside the buffer's lock, so the decisions carry
    /// their order.
    private let setReadingPaused: @Sendable (ReadPauseDecision) -> Void

    private struct State {
        var messages: [WebSocketMessage] = []
        var head = 0
        var bufferedBytes = 0
        var isFinished = false
        var isPaused = false
        var pauseDecisions: UInt64 = 0
        var nextWaiterID = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<WebSocketMessage?, Never>)] = []

        mutating func pop() -> WebSocketMessage? {
            guard head < messages.count else { return nil }
            let message = messages[head]
            head += 1
            bufferedBytes -= message.bufferCharge
            if head == messages.count {
                messages.removeAll(keepingCapacity: messages.count <= 1024)
                head = 0
            } else if head >= 1024 && head * 2 >= messages.count {
                messages.removeFirst(head)
                head = 0
            }
            return message
        }
    }

    init(
        highWatermark: Int = 1 << 20, lowWatermark: Int = 256 << 10,
        setReadingPaused: @escaping @Sendable (ReadPauseDecision) -> Void
    ) {
        self.highWatermark = highWatermark
        self.lowWatermark = lowWatermark
        self.setReadingPaused = setReadingPaused
    }

    /// What the messages waiting to be read are charged: their payload bytes plus a fixed overhead each.
    var bufferedByteCount: Int { state.withLock { $0.bufferedBytes } }

    /// Adds received messages in order, handing the first ones straight to waiting consumers; one lock for all.
    func push(_ messages: [WebSocketMessage]) {
        guard !messages.isEmpty else { return }
        var handed: [(CheckedContinuation<WebSocketMessage?, Never>, WebSocketMessage)] = []
        let pause = state.withLock { state -> ReadPauseDecision? in
            guard !state.isFinished else { return nil }
            for message in messages {
                if !state.waiters.isEmpty {
                    handed.append((state.waiters.removeFirst().continuation, message))
                } else {
                    state.messages.append(message)
                    state.bufferedBytes += message.bufferCharge
                }
            }
            if !state.isPaused && state.bufferedBytes > highWatermark {
                state.isPaused = true
                state.pauseDecisions += 1
                return ReadPauseDecision(paused: true, number: state.pauseDecisions)
            }
            return nil
        }
        for (waiter, message) in handed { waiter.resume(returning: message) }
        if let pause { setReadingPaused(pause) }
    }

    /// Ends the sequence after the messages already buffered.
    func finish() {
        let waiters = state.withLock { state -> [CheckedContinuation<WebSocketMessage?, Never>] in
            state.isFinished = true
            defer { state.waiters = [] }
            return state.waiters.map(\.continuation)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    func next() async -> WebSocketMessage? {
        // Fast path: a message is already waiting, no suspension.
        if let ready = state.withLock({ take(&$0) }) { return deliver(ready) }
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> Ready? in
                    // A message may have arrived since the fast path looked.
                    if let ready = take(&state) { return ready }
                    if Task.isCancelled { return Ready(message: nil, resumeReading: nil) }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: deliver(ready)) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<WebSocketMessage?, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiters.remove(at: index).continuation
            }
            waiter?.resume(returning: nil)
        }
    }

    func nextBuffered() -> WebSocketMessage? {
        guard let ready = state.withLock({ state in state.messages.count > state.head ? take(&state) : nil }) else { return nil }
        return deliver(ready)
    }

    private struct Ready {
        var message: WebSocketMessage?
        var resumeReading: ReadPauseDecision?
    }

    /// A buffered message (or the end), nil when the consumer must wait.
    private func take(_ state: inout State) -> Ready? {
        guard let message = state.pop() else { return state.isFinished ? Ready(message: nil, resumeReading: nil) : nil }
        if state.isPaused && state.bufferedBytes <= lowWatermark {
            state.isPaused = false
            state.pauseDecisions += 1
            return Ready(message: message, resumeReading: ReadPauseDecision(paused: false, number: state.pauseDecisions))
        }
        return Ready(message: message, resumeReading: nil)
    }

    private func deliver(_ ready: Ready) -> WebSocketMessage? {
        if let resume = ready.resumeReading { setReadingPaused(resume) }
        return ready.message
    }
}

extension WebSocketMessage {
    /// What a buffered message costs beside its payload: the enum, the array or string header and the buffer slot
    /// take about this much, so a flood of empty messages fills the buffer (and pauses reading) like any other.
    static let bufferOverhead = 64

    /// Payload size plus the fixed overhead, for buffer accounting.
    var bufferCharge: Int {
        switch self {
        case .text(let text): text.utf8.count + Self.bufferOverhead
        case .binary(let bytes): bytes.count + Self.bufferOverhead
        }
    }
}
