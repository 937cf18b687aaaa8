import Synchronization
import WebSocket

/// The machinery behind `ChatterRealtimeConnection`: one reader task decodes every frame once, hands replies to
/// their requests and everything else to the event buffer; one watchdog task sleeps on the clock until the earliest
/// deadline (`session.ready` or a reply) and times it out.
///
/// State lives under a mutex that is never held across a suspension, so callers on any task (and the reader) only
/// contend for a few dictionary operations per frame.
final class RealtimeSession: Sendable {
    typealias Reply = Result<ServerFrame, RealtimeError>
    typealias Waiter = CheckedContinuation<Reply, Never>

    /// The table entry of the `session.ready` wait; request ids start at 1.
    static let sessionReadyID: UInt64 = 0

    let webSocket: WebSocketConnection
    let events: RealtimeEventBuffer
    private let eventBufferHardLimit: Int
    private let clock: any ChatterClock
    private let taskExecutor: (any TaskExecutor)?
    private let state = Mutex(State())
    private let lastRequestID = Atomic<UInt64>(0)
    /// Hears every `pong`: the connection's heartbeat, whose pings register no request.
    private let pongObserver = Mutex<(@Sendable () -> Void)?>(nil)
    /// Set by `keepAcknowledgementsInEvents()`: a `message.ack` that answers a request reaches `events` as well.
    private let acknowledgementsInEvents = Atomic<Bool>(false)

    private struct State {
        var requests = PendingRequestTable<Waiter, Reply>()
        var awaitsSessionReady = true
        var closeReason: RealtimeCloseReason?
        /// Set when `events` refused an event (its consumer is stuck): the connection is closing for that reason.
        var eventBufferOverflowLimit: Int?
        var closeWaiters: [CheckedContinuation<RealtimeCloseReason, Never>] = []
        /// Waiters of `waitUntilClosed()`, by id so that a cancelled one can leave.
        var endWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextEndWaiterID: UInt64 = 0
        var watchdog: Task<Void, Never>?
        /// The deadline the current watchdog sleeps until; nil when no watchdog runs.
        var watchdogDeadline: Date?
        /// Bumped whenever a watchdog is replaced, so a superseded one that wakes anyway does nothing.
        var watchdogGeneration: UInt64 = 0
    }

    init(
        webSocket: WebSocketConnection, clock: any ChatterClock, eventBufferLimit: Int, eventBufferHardLimit: Int,
        taskExecutor: (any TaskExecutor)?
    ) {
        self.webSocket = webSocket
        self.clock = clock
        self.taskExecutor = taskExecutor
        self.events = RealtimeEventBuffer(backlogLimit: eventBufferLimit, hardLimit: eventBufferHardLimit)
        self.eventBufferHardLimit = eventBufferHardLimit
    }

    /// Starts reading frames, with `session.ready` due within `sessionReadyTimeout`, or awaited until the waiting
    /// task is cancelled when it is nil.
    func start(sessionReadyTimeout: Duration?) {
        let now = clock.now
        state.withLock { state in
            guard let sessionReadyTimeout else {
                state.requests.insertWithoutDeadline(id: Self.sessionReadyID, type: "session.ready")
                return
            }
            let deadline = state.requests.insert(
                id: Self.sessionReadyID, type: "session.ready", timeout: sessionReadyTimeout, now: now)
            armWatchdog(&state, deadline: deadline)
        }
        Task(executorPreference: taskExecutor) { await self.readFrames() }
    }

    // MARK: Waiting for replies

    /// The `session.ready` frame, or why it did not come.
    func sessionReady() async -> Reply {
        await withTaskCancellationHandler {
            await reply(to: Self.sessionReadyID)
        } onCancel: {
            settle(Self.sessionReadyID, with: .failure(.cancelled))
        }
    }

    /// Calls `observer` for every `pong` from now on, answered request or not; the pongs that answer no request then
    /// stop there instead of reaching `events`.
    func observePongs(_ observer: @escaping @Sendable () -> Void) {
        pongObserver.withLock { $0 = observer }
    }

    /// From now on, a `message.ack` that answers a request also reaches `events`, in the order it was read.
    func keepAcknowledgementsInEvents() {
        acknowledgementsInEvents.store(true, ordering: .relaxed)
    }

    /// A fresh request id (`c-<n>` on the wire).
    func makeRequestID() -> UInt64 {
        lastRequestID.add(1, ordering: .relaxed).newValue
    }

    /// Starts waiting for the reply to request `id`, due within `timeout`; call before sending its frame.
    /// - Throws: `.closed` once the connection has ended.
    func register(id: UInt64, type: String, timeout: Duration) throws(RealtimeError) {
        let now = clock.now
        try state.withLock { state throws(RealtimeError) in
            if let reason = state.closeReason { throw .closed(reason) }
            let deadline = state.requests.insert(id: id, type: type, timeout: timeout, now: now)
            armWatchdog(&state, deadline: deadline)
        }
    }

    /// Settles request `id` (the first outcome wins). Returns false when it was not pending any more.
    @discardableResult
    func settle(_ id: UInt64, with reply: Reply) -> Bool {
        let resolution = state.withLock { $0.requests.resolve(id, with: reply) }
        switch resolution {
        case .notPending: return false
        case .stored: return true
        case .resume(let waiter):
            waiter.resume(returning: reply)
            return true
        }
    }

    /// Writes the frame of request `id`, unless the request is already settled: cancelled (the cancellation
    /// handler runs at once for a task cancelled just before), timed out, or failed by the close. A request whose
    /// caller is gone must not reach the server, where a `message.send` would create the message. A write that
    /// fails settles the request (a closing socket is left to the reader, which fails it with the close reason).
    func sendRequest(id: UInt64, text: String) async {
        guard state.withLock({ $0.requests.isAwaitingOutcome(id) }) else { return }
        do throws(WebSocketError) {
            try await webSocket.send(.text(text))
        } catch {
            switch error {
            case .closing, .connectionClosed: break
            default: settle(id, with: .failure(.connectionFailed(error)))
            }
        }
    }

    /// Forgets request `id` whose frame was never sent.
    func forget(_ id: UInt64) {
        state.withLock { $0.requests.remove(id) }
    }

    /// The outcome of request `id`: its reply, a timeout, the close, or a cancellation.
    func reply(to id: UInt64) async -> Reply {
        await withCheckedContinuation { (waiter: Waiter) in
            let ready = state.withLock { state in
                state.requests.attach(waiter, to: id, missing: .failure(.closed(state.closeReason ?? .normal)))
            }
            if let ready { waiter.resume(returning: ready) }
        }
    }

    /// How the connection ended; suspends until it has and every pending request was failed.
    var closeReason: RealtimeCloseReason {
        get async {
            await withCheckedContinuation { continuation in
                let reason = state.withLock { state -> RealtimeCloseReason? in
                    if let reason = state.closeReason { return reason }
                    state.closeWaiters.append(continuation)
                    return nil
                }
                if let reason { continuation.resume(returning: reason) }
            }
        }
    }

    /// Returns once the connection has ended, or when the calling task is cancelled.
    func waitUntilClosed() async {
        let id = state.withLock { state in
            defer { state.nextEndWaiterID += 1 }
            return state.nextEndWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let waits = state.withLock { state -> Bool in
                    guard state.closeReason == nil, !Task.isCancelled else { return false }
                    state.endWaiters[id] = continuation
                    return true
                }
                if !waits { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.endWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// The close reason if the connection has ended, without waiting.
    var currentCloseReason: RealtimeCloseReason? {
        state.withLock { $0.closeReason }
    }

    /// The number of requests (and the `session.ready` wait) not settled yet.
    var pendingCount: Int {
        state.withLock { $0.requests.count }
    }

    // MARK: Reading

    /// Reads every frame until the socket ends. It never waits for the consumer of `events`, so replies are routed
    /// however many events wait unread; a consumer that is stuck costs the connection instead (see `eventBufferOverflow`).
    /// Once a synchronous consumer took over (`RealtimeEventSink`), the frames that arrived together go to it as one
    /// batch from this task.
    private func readFrames() async {
        var messages = webSocket.messages.makeAsyncIterator()
        var sink: (any RealtimeEventSink)?
        var batch: [RealtimeEvent] = []
        while let first = await messages.next() {
            if sink == nil { sink = events.sink }
            var next: WebSocketMessage? = first
            while let message = next {
                if let event = event(from: message) {
                    if sink == nil {
                        switch events.push(event) {
                        case .accepted: break
                        // Never a wait (a reply may be next on the socket), but a turn for a consumer starved of CPU:
                        // while the socket has data this loop does not suspend, and on a two-thread pool it could
                        // keep the consumer off.
                        case .acceptedBehind: await Task.yield()
                        case .overflowed: closeForEventBufferOverflow()
                        case .sinkTookOver(let taker):
                            sink = taker
                            batch.append(event)
                        }
                    } else {
                        batch.append(event)
                    }
                }
                next = batch.count < RealtimeEventBuffer.maxBatch ? messages.nextBuffered() : nil
            }
            if let sink, !batch.isEmpty {
                sink.receive(batch)
                let isFull = batch.count >= RealtimeEventBuffer.maxBatch
                batch.removeAll(keepingCapacity: true)
                // A flood that keeps the socket readable would otherwise keep this loop from suspending.
                if isFull { await Task.yield() }
            }
        }
        let info = await webSocket.closeInfo
        let overflow = state.withLock { $0.eventBufferOverflowLimit }
        end(overflow.map { .eventBufferOverflow(limit: $0) } ?? RealtimeCloseReason(info))
    }

    private func event(from message: WebSocketMessage) -> RealtimeEvent? {
        switch message {
        case .text(let text): route(text)
        case .binary(let bytes): .diagnostic(.binaryFrame(byteCount: bytes.count))
        }
    }

    /// `events` refused an event: its consumer is stuck. Closes the connection (once), so that memory stays bounded
    /// and the caller reconnects and syncs; replies are still read until the close completes.
    private func closeForEventBufferOverflow() {
        let isFirst = state.withLock { state -> Bool in
            guard state.eventBufferOverflowLimit == nil else { return false }
            state.eventBufferOverflowLimit = eventBufferHardLimit
            return true
        }
        guard isFirst else { return }
        let reason = RealtimeCloseReason.eventBufferOverflow(limit: eventBufferHardLimit)
        let (webSocket, limit) = (webSocket, eventBufferHardLimit)
        Task(executorPreference: taskExecutor) { await webSocket.close(code: WebSocketCloseCode(reason.code), reason: "\(limit) events not read") }
    }

    /// Decodes one text frame and delivers it: to the request it answers, to the `session.ready` wait, or as the
    /// event returned.
    private func route(_ text: String) -> RealtimeEvent? {
        let frame: ServerFrame
        switch Self.decode(text) {
        case .success(let decoded):
            frame = decoded
        case .failure(let error):
            if error.frameType == "session.ready", settleSessionReady(with: .failure(.invalidSessionReady(error))) {
                return nil
            }
            // A broken reply still answers its request: fail it now rather than at its timeout, and report the frame.
            if let replyTo = error.replyTo, let id = RequestID.parse(replyTo) {
                settle(id, with: .failure(.invalidReply(error)))
            }
            return .diagnostic(.malformedFrame(error, excerpt: String(text.prefix(RealtimeDiagnostic.excerptLength))))
        }
        var isObservedPong = false
        if case .pong = frame.event, let observer = pongObserver.withLock({ $0 }) {
            observer()
            isObservedPong = true
        }
        if let replyTo = frame.replyTo, let id = RequestID.parse(replyTo), settle(id, with: .success(frame)) {
            if case .messageAck = frame.event, acknowledgementsInEvents.load(ordering: .relaxed) { return .frame(frame) }
            return nil
        }
        if isObservedPong { return nil }
        if case .sessionReady = frame.event, settleSessionReady(with: .success(frame)) {
            return nil
        }
        return .frame(frame)
    }

    /// Settles the `session.ready` wait if it is still open; returns false when it is not (a repeated frame).
    private func settleSessionReady(with reply: Reply) -> Bool {
        let open = state.withLock { state -> Bool in
            defer { state.awaitsSessionReady = false }
            return state.awaitsSessionReady
        }
        return open && settle(Self.sessionReadyID, with: reply)
    }

    /// Decodes a frame straight from the string's UTF-8 storage, without copying it into a `Data` buffer.
    static func decode(_ text: String) -> Result<ServerFrame, FrameDecodingError> {
        var text = text
        return text.withUTF8 { utf8 in
            guard let base = utf8.baseAddress, !utf8.isEmpty else {
                return Result { () throws(FrameDecodingError) in try ServerFrame(jsonData: Data()) }
            }
            // The Data borrows the bytes only for this closure: the decoder reads them during `init(jsonData:)`
            // and keeps nothing (decoded strings are copies), so no deallocator is needed.
            let data = Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: utf8.count, deallocator: .none)
            return Result { () throws(FrameDecodingError) in try ServerFrame(jsonData: data) }
        }
    }

    /// The connection ended: fails every pending request, ends the events, wakes `closeReason` waiters.
    private func end(_ reason: RealtimeCloseReason) {
        let (failed, closeWaiters) = state.withLock { state in
            state.closeReason = reason
            state.awaitsSessionReady = false
            state.watchdog?.cancel()
            state.watchdog = nil
            state.watchdogDeadline = nil
            state.watchdogGeneration &+= 1
            let failed = state.requests.resolveAll { _ in .failure(.closed(reason)) }
            defer {
                state.closeWaiters = []
                state.endWaiters = [:]
            }
            return (failed, (state.closeWaiters, Array(state.endWaiters.values)))
        }
        for (waiter, reply) in failed { waiter.resume(returning: reply) }
        events.finish()
        for waiter in closeWaiters.0 { waiter.resume(returning: reason) }
        for waiter in closeWaiters.1 { waiter.resume() }
    }

    // MARK: Timeouts

    /// Makes sure a watchdog wakes by `deadline`: starts one, or replaces one that sleeps longer.
    private func armWatchdog(_ state: inout State, deadline: Date) {
        if let current = state.watchdogDeadline, current <= deadline { return }
        state.watchdog?.cancel()
        state.watchdogGeneration &+= 1
        let generation = state.watchdogGeneration
        state.watchdogDeadline = deadline
        state.watchdog = Task(executorPreference: taskExecutor) { await self.watch(generation: generation, firstDeadline: deadline) }
    }

    private func watch(generation: UInt64, firstDeadline: Date) async {
        var deadline = firstDeadline
        while true {
            do {
                try await clock.sleep(until: deadline)
            } catch {
                return  // cancelled: replaced by a watchdog with an earlier deadline, or the connection ended
            }
            let now = clock.now
            let (expired, next) = state.withLock { state -> ([(Waiter, Reply)], Date?) in
                guard state.watchdogGeneration == generation else { return ([], nil) }
                let expired = state.requests.expire(now: now) { request in .failure(Self.timeoutError(request)) }
                let next = state.requests.nextDeadline()
                state.watchdogDeadline = next
                if next == nil { state.watchdog = nil }
                return (expired, next)
            }
            for (waiter, reply) in expired { waiter.resume(returning: reply) }
            guard let next else { return }
            deadline = next
        }
    }

    private static func timeoutError(_ request: PendingRequestTable<Waiter, Reply>.Request) -> RealtimeError {
        if request.id == sessionReadyID { return .sessionReadyTimedOut(after: request.timeout) }
        return .replyTimedOut(requestType: request.type, id: RequestID.text(request.id), after: request.timeout)
    }
}

/// The wire form of request ids: `c-<n>`, n ≥ 1 in decimal without leading zeros (as in the seed's `c-42`).
enum RequestID {
    static func text(_ id: UInt64) -> String {
        "c-" + String(id)
    }

    /// The number of an id this connection made; nil for any other text.
    static func parse(_ text: String) -> UInt64? {
        var utf8 = text.utf8.makeIterator()
        guard utf8.next() == UInt8(ascii: "c"), utf8.next() == UInt8(ascii: "-"), let first = utf8.next(),
            first >= UInt8(ascii: "1") && first <= UInt8(ascii: "9")
        else { return nil }
        var value = UInt64(first - UInt8(ascii: "0"))
        while let byte = utf8.next() {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            let (times10, overflowA) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowB) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflowA && !overflowB else { return nil }
            value = sum
        }
        return value
    }
}
