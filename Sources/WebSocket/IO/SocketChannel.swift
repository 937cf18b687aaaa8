import CLinuxIO
import Glibc
import Synchronization

/// A connected, non-blocking TCP socket owned by one `EventLoop`, optionally carrying TLS.
///
/// Reads happen on the loop thread; with TLS they are decrypted under the channel's lock, and the plaintext goes
/// to the `ChannelHandler`. Writes may come from any thread: when nothing is queued the caller becomes the
/// channel's writer and sends straight to the socket, outside the lock (a non-blocking write never blocks the
/// caller, but on loopback it carries the peer's receive path: holding the lock through it stalled the loop's
/// reads). Bytes accepted meanwhile are queued and sent by that writer, in order; what the kernel does not take
/// waits in the queue, flushed on EPOLLOUT. Past `highWatermark` queued bytes, writers are expected to wait
/// (`waitUntilWritable`) until the queue drains below `lowWatermark`. With TLS, writes go out under the lock.
final class SocketChannel: EventLoopSelectable {
    let loop: EventLoop
    let remoteAddress: SocketAddress?
    let highWatermark: Int
    let lowWatermark: Int

    private let fd: Int32
    private let state: Mutex<State>

    private struct State {
        var handler: (any ChannelHandler)?
        /// The TLS session, used only under the lock (it is not thread-safe).
        var tls: TLSSession?
        var token: UInt64 = 0
        var isRegistered = false
        var isClosed = false
        var closeWhenFlushed = false
        /// Why the channel failed, recorded under the lock that first saw the failure: a writer refused before the
        /// handler hears `channelClosed` can still tell why (``closeError``).
        var closeError: ChannelError?
        /// After `closeGracefully`: how long to drain the peer's bytes once our side is shut down.
        var drainTimeout: Duration?
        /// Output is shut down; reads are discarded until the peer's end of stream or the drain timer.
        var isDraining = false
        var readingPaused = false
        /// The number of the last `ReadPauseDecision` applied: an older one arriving late is dropped.
        var lastReadPauseDecision: UInt64 = 0
        var watchingWritable = false
        var queue = WriteQueue()
        /// A caller is sending outside the lock (see `flush`); others queue behind it.
        var isWriting = false
        /// The queue is sent at the end of the loop's turn (see `flush`); `isWriting` is set meanwhile.
        var isFlushScheduled = false
        /// The socket was closed while a writer was sending: the writer closes the descriptor when it is done,
        /// so that its number cannot be reused under it.
        var closesDescriptorAfterWrite = false
        var writabilityWaiters: [@Sendable (Bool) -> Void] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What became of bytes handed to `write`.
    enum WriteOutcome: Equatable {
        /// Written or queued; `mustWait` when the queue is past the high watermark.
        case accepted(mustWait: Bool)
        /// The channel is closed or closing; the bytes were dropped.
        case closed
    }

    /// Queued bytes past which writers wait, unless a channel is made with others.
    static let defaultHighWatermark = 1 << 20
    /// Queued bytes at or below which waiting writers resume, unless a channel is made with others.
    static let defaultLowWatermark = 256 << 10

    /// - Parameter tls: a session to run over the socket; a client session starts its handshake in `start`.
    init(
        fd: Int32, loop: EventLoop, tls: sending TLSSession? = nil,
        highWatermark: Int = defaultHighWatermark, lowWatermark: Int = defaultLowWatermark
    ) {
        self.fd = fd
        self.loop = loop
        self.remoteAddress = Socket.remoteAddress(of: fd)
        self.highWatermark = highWatermark
        self.lowWatermark = lowWatermark
        self.state = Mutex(State(tls: tls))
        Socket.setNoDelay(fd)
    }

    /// Starts reading into `handler` (and a client's TLS handshake); must be called on the loop thread.
    func start(handler: any ChannelHandler) {
        assert(loop.inEventLoop)
        let failure = state.withLock { state -> ChannelError? in
            guard !state.isClosed else { return nil }
            state.handler = handler
            do throws(IOError) {
                state.token = try loop.register(fd: fd, events: interest(state), self)
                state.isRegistered = true
            } catch {
                return .io(error)
            }
            guard let tls = state.tls, tls.role == .client else { return nil }
            do throws(TLSError) {
                _ = try tls.handshake()
            } catch {
                return .tls(error)
            }
            return flushTLSOutput(tls, &state)
        }
        if let failure { closeNow(error: failure) }
    }

    /// Runs a client TLS session over the socket, verifying the server as `serverName`; call before `start`.
    func enableTLS(client configuration: TLSConfiguration, serverName: String) throws(TLSError) {
        try state.withLock { (state: inout State) throws(TLSError) in
            state.tls = try TLSSession(client: configuration, serverName: serverName)
        }
    }

    /// Replaces the handler that receives reads (e.g. HTTP → WebSocket after an upgrade); call on the loop thread.
    func setHandler(_ handler: any ChannelHandler) {
        state.withLock { $0.handler = handler }
    }

    /// Whether the channel is closed or closing (no more writes accepted).
    var isClosed: Bool { state.withLock { $0.isClosed || $0.closeWhenFlushed || $0.closeError != nil } }

    /// Why the channel failed (the error its handler hears in `channelClosed`), known from the moment it refuses
    /// writes because of it; nil while it works, and for a close asked for or a clean end of stream.
    var closeError: ChannelError? { state.withLock { $0.closeError } }

    /// Bytes accepted but not yet written to the socket.
    var queuedByteCount: Int { state.withLock { $0.queue.count } }

    /// Writers waiting for room (``waitUntilWritable()``, ``whenWritable(_:)``).
    var writabilityWaiterCount: Int { state.withLock { $0.writabilityWaiters.count } }

    /// Whether the TLS handshake has completed (always true without TLS).
    var isTLSHandshakeComplete: Bool { state.withLock { $0.tls?.isHandshakeComplete ?? true } }

    /// Bytes `enqueue` accepted that its caller must send with `flush`, once it holds no lock of its own.
    struct PendingWrite {
        fileprivate let bytes: [UInt8]
    }

    /// Writes or queues `bytes` (encrypted first with TLS); callable from any thread. Writes keep the order of the calls.
    func write(_ bytes: [UInt8]) -> WriteOutcome {
        let (outcome, pending) = enqueue(bytes)
        guard let pending else { return outcome }
        return .accepted(mustWait: flush(pending))
    }

    /// Accepts `bytes` after every byte accepted before, without a system call unless TLS is on; callable from any
    /// thread, also under a caller's lock that orders its writes. When nothing is queued, returns them as a
    /// `PendingWrite`: the caller is then the channel's writer and must pass it to `flush` (other writes queue
    /// until it does).
    func enqueue(_ bytes: [UInt8]) -> (WriteOutcome, PendingWrite?) {
        let (outcome, pending, failure) = state.withLock { state -> (WriteOutcome, PendingWrite?, ChannelError?) in
            guard !state.isClosed, !state.closeWhenFlushed, state.closeError == nil else { return (.closed, nil, nil) }
            if let tls = state.tls {
                do throws(TLSError) {
                    try tls.writePlaintext(bytes)
                } catch {
                    return (.closed, nil, Self.record(.tls(error), &state))
                }
                if let failure = flushTLSOutput(tls, &state) { return (.closed, nil, Self.record(failure, &state)) }
                return (.accepted(mustWait: state.queue.count > highWatermark), nil, nil)
            }
            if state.isWriting || !state.queue.isEmpty {
                state.queue.append(bytes)
                return (.accepted(mustWait: state.queue.count > highWatermark), nil, nil)
            }
            state.isWriting = true
            return (.accepted(mustWait: false), PendingWrite(bytes: bytes), nil)
        }
        // On the loop, later: a caller may hold its own lock, which the handler's `channelClosed` takes.
        if let failure { loop.execute { [self] in closeNow(error: failure) } }
        return (outcome, pending)
    }

    /// Sends the writer's bytes and whatever was queued behind them meanwhile, outside the lock, until the queue
    /// is empty or the kernel takes no more (the rest then waits for EPOLLOUT). Returns whether the queue is past
    /// the high watermark.
    ///
    /// On the loop thread the bytes are sent at the end of the loop's turn instead, with everything else the turn
    /// writes to this socket (a receipt, a reply, another receipt): one system call for them all.
    func flush(_ pending: PendingWrite) -> Bool {
        var batch = WriteQueue()
        batch.append(pending.bytes)
        if loop.inEventLoop {
            let (mustWait, schedules) = state.withLock { state -> (Bool, Bool) in
                // Bytes queued meanwhile were accepted after the writer's, so they go behind them.
                batch.append(state.queue)
                swap(&state.queue, &batch)
                defer { state.isFlushScheduled = true }
                return (state.queue.count > highWatermark, !state.isFlushScheduled)
            }
            if schedules { loop.atEndOfTurn { [self] in flushAtEndOfTurn() } }
            return mustWait
        }
        return send(&batch)
    }

    /// Sends what the turn queued, as the writer `flush` left in charge.
    private func flushAtEndOfTurn() {
        var batch = WriteQueue()
        let isClosed = state.withLock { state -> Bool in
            state.isFlushScheduled = false
            guard state.isClosed else {
                swap(&state.queue, &batch)
                return false
            }
            // Closed without flushing meanwhile: nothing more is sent, and the descriptor kept for this writer goes.
            state.isWriting = false
            if state.closesDescriptorAfterWrite {
                state.closesDescriptorAfterWrite = false
                Glibc.close(fd)
            }
            return true
        }
        if !isClosed { _ = send(&batch) }
    }

    /// Sends `batch` and whatever is queued behind it meanwhile, as the channel's writer.
    private func send(_ batch: inout WriteQueue) -> Bool {
        var rounds = 0
        while true {
            let sendFailure = Self.sendQueued(fd, &batch)
            rounds += 1
            let step = state.withLock { state -> FlushStep in
                if state.isClosed {
                    state.isWriting = false
                    if state.closesDescriptorAfterWrite {
                        state.closesDescriptorAfterWrite = false
                        Glibc.close(fd)
                    }
                    return .finished(mustWait: false, waiters: [], closesNow: false)
                }
                if let sendFailure {
                    state.isWriting = false
                    return .failed(Self.record(.io(sendFailure), &state))
                }
                // A few rounds, then the queue is the loop's, so that steady writers cannot keep one caller here.
                if !batch.isEmpty || (rounds >= 16 && !state.queue.isEmpty) {
                    batch.append(state.queue)
                    swap(&state.queue, &batch)
                    state.isWriting = false
                    watchWritable(true, &state)
                    return .finished(mustWait: state.queue.count > highWatermark, waiters: [], closesNow: false)
                }
                if !state.queue.isEmpty {
                    swap(&state.queue, &batch)
                    return .again
                }
                state.isWriting = false
                var waiters: [@Sendable (Bool) -> Void] = []
                swap(&waiters, &state.writabilityWaiters)
                return .finished(mustWait: false, waiters: waiters, closesNow: state.closeWhenFlushed)
            }
            switch step {
            case .again:
                continue
            case .failed(let failure):
                close(error: failure)
                return false
            case .finished(let mustWait, let waiters, let closesNow):
                for waiter in waiters { waiter(true) }
                if closesNow {
                    if loop.inEventLoop {
                        finishFlushedClose()
                    } else {
                        loop.execute { [self] in finishFlushedClose() }
                    }
                }
                return mustWait
            }
        }
    }

    /// What a writer does after a round of sending.
    private enum FlushStep {
        /// Send what was queued meanwhile.
        case again
        /// Done: wake the writers waiting for room, and finish a requested close if everything is written.
        case finished(mustWait: Bool, waiters: [@Sendable (Bool) -> Void], closesNow: Bool)
        /// The socket failed; close it.
        case failed(ChannelError)
    }

    /// Suspends until the queue drains below the low watermark; returns false if the channel closed instead.
    func waitUntilWritable() async -> Bool {
        await withCheckedContinuation { continuation in
            whenWritable { continuation.resume(returning: $0) }
        }
    }

    /// Calls `body` once the queue drains below the low watermark (at once if it is there already), with false if
    /// the channel closed instead; for synchronous callers. `body` runs outside the lock, on whichever thread saw
    /// the queue drain.
    func whenWritable(_ body: @escaping @Sendable (Bool) -> Void) {
        let resumeNow: Bool? = state.withLock { state in
            if state.isClosed { return false }
            if state.queue.count <= lowWatermark { return true }
            state.writabilityWaiters.append(body)
            return nil
        }
        if let resumeNow { body(resumeNow) }
    }

    /// Stops or resumes watching for incoming bytes, so a slow consumer pushes back on the peer through TCP.
    func setReadingPaused(_ paused: Bool) {
        state.withLock { state in setReadingPaused(paused, &state) }
    }

    /// Applies an inbound buffer's decision unless a newer one was applied already: the buffer decides under its
    /// own lock but calls from two threads (the loop pausing, the consumer resuming), so its calls may arrive in
    /// the other order, and a late pause must not stop reading for good.
    func setReadingPaused(_ decision: ReadPauseDecision) {
        state.withLock { state in
            guard decision.number > state.lastReadPauseDecision else { return }
            state.lastReadPauseDecision = decision.number
            setReadingPaused(decision.paused, &state)
        }
    }

    /// Whether the channel has stopped watching for incoming bytes.
    var isReadingPaused: Bool { state.withLock { $0.readingPaused } }

    private func setReadingPaused(_ paused: Bool, _ state: inout State) {
        guard state.readingPaused != paused, !state.isClosed else { return }
        state.readingPaused = paused
        updateInterest(&state)
    }

    /// Closes once every accepted byte is written (or at once if none are queued); callable from any thread.
    func closeAfterFlush() {
        requestClose(drainTimeout: nil)
    }

    /// Writes what is queued (and a TLS close_notify), shuts down our direction (FIN), then discards the peer's
    /// bytes until it closes too or `drainTimeout` passes. Closing with unread bytes would make the kernel send a
    /// reset, which can destroy our last bytes (a WebSocket close frame) before the peer reads them.
    func closeGracefully(drainTimeout: Duration) {
        requestClose(drainTimeout: drainTimeout)
    }

    /// Closes the socket without flushing; callable from any thread. The handler hears `channelClosed` once.
    func close(error: ChannelError? = nil) {
        if loop.inEventLoop {
            closeNow(error: error)
        } else {
            loop.execute { [self] in closeNow(error: error) }
        }
    }

    /// Suspends until the socket is closed.
    func waitUntilClosed() async {
        await withCheckedContinuation { continuation in
            let closed = state.withLock { state -> Bool in
                if state.isClosed { return true }
                state.closeWaiters.append(continuation)
                return false
            }
            if closed { continuation.resume() }
        }
    }

    // MARK: Writing

    /// With TLS, under the lock: sends `bytes` now if nothing is queued, queueing what the kernel does not take;
    /// returns a fatal error.
    private func sendOrQueue(_ bytes: [UInt8], _ state: inout State) -> ChannelError? {
        assert(!state.isWriting, "a TLS channel never has a writer outside the lock")
        var written = 0
        if state.queue.isEmpty {
            switch bytes.withUnsafeBytes({ Self.send(fd, $0) }) {
            case .success(let count): written = count
            case .failure(let error): return .io(error)
            }
            if written == bytes.count { return nil }
        }
        state.queue.append(written == 0 ? bytes : Array(bytes[written...]))
        watchWritable(true, &state)
        return nil
    }

    /// Sends `queue` until it is empty or the kernel takes no more (what is left stays queued); returns a fatal error.
    private static func sendQueued(_ fd: Int32, _ queue: inout WriteQueue) -> IOError? {
        while !queue.isEmpty {
            var code: Int32 = 0
            let written = queue.write { buffers in
                var vectors = buffers.map {
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count)
                }
                // sendmsg rather than writev: MSG_NOSIGNAL turns a write to a reset connection into EPIPE
                // instead of a SIGPIPE that would kill the process.
                let result = vectors.withUnsafeMutableBufferPointer { vectors in
                    var message = msghdr()
                    message.msg_iov = vectors.baseAddress
                    message.msg_iovlen = vectors.count
                    return Glibc.sendmsg(fd, &message, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                }
                if result < 0 { code = errno }
                return max(0, result)
            }
            if written > 0 { continue }
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            return IOError(operation: "sendmsg", errno: code)
        }
        return nil
    }

    /// Writes as much of `bytes` as the kernel takes without blocking; returns the count written.
    private static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Result<Int, IOError> {
        guard let base = bytes.baseAddress else { return .success(0) }
        var written = 0
        while written < bytes.count {
            let result = Glibc.send(fd, base + written, bytes.count - written, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            if result >= 0 {
                written += result
                continue
            }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { break }
            return .failure(IOError(operation: "send", errno: code))
        }
        return .success(written)
    }

    /// Sends the ciphertext the TLS session produced (handshake messages, records, alerts).
    private func flushTLSOutput(_ tls: TLSSession, _ state: inout State) -> ChannelError? {
        guard tls.pendingCiphertextCount > 0 else { return nil }
        return sendOrQueue(tls.drainCiphertext(), &state)
    }

    private func requestClose(drainTimeout: Duration?) {
        let flushed = state.withLock { state -> Bool in
            guard !state.isClosed, !state.closeWhenFlushed else { return false }
            if let tls = state.tls {
                tls.shutdown()
                _ = flushTLSOutput(tls, &state)
            }
            state.closeWhenFlushed = true
            state.drainTimeout = drainTimeout
            // A writer sending now finishes the close when it is done.
            return state.queue.isEmpty && !state.isWriting
        }
        guard flushed else { return }
        if loop.inEventLoop {
            finishFlushedClose()
        } else {
            loop.execute { [self] in finishFlushedClose() }
        }
    }

    /// Everything is written: close now, or shut down output and drain.
    private func finishFlushedClose() {
        let drainTimeout = state.withLock { state -> Duration? in
            guard !state.isClosed, let timeout = state.drainTimeout, !state.isDraining else { return nil }
            state.isDraining = true
            Glibc.shutdown(fd, Int32(SHUT_WR))
            return timeout
        }
        guard let drainTimeout else {
            if !state.withLock({ $0.isDraining }) { closeNow(error: nil) }
            return
        }
        loop.scheduleTimer(in: drainTimeout) { [self] in closeNow(error: nil) }
    }

    // MARK: Loop-thread side

    func selectableReadable() {
        loop.withReadBuffer { buffer in
            // A few reads per wake-up: enough to drain a burst, few enough to stay fair to the loop's other sockets.
            for _ in 0..<4 {
                let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
                if count > 0 {
                    guard received(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) else { return }
                    if count < buffer.count { return }
                } else if count == 0 {
                    endOfStream()
                    return
                } else {
                    let code = errno
                    if code == EINTR { continue }
                    if code == EAGAIN || code == EWOULDBLOCK { return }
                    closeNow(error: .io(IOError(operation: "read", errno: code)))
                    return
                }
            }
        }
    }

    /// Hands received bytes (decrypted with TLS) to the handler; false once the channel should stop reading.
    private func received(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let (handler, plaintext, peerClosed, failure) = state.withLock {
            state -> ((any ChannelHandler)?, [UInt8]?, Bool, ChannelError?) in
            if state.isClosed { return (nil, nil, false, nil) }
            if state.isDraining { return (nil, nil, false, nil) }
            guard let tls = state.tls else { return (state.handler, nil, false, nil) }
            tls.feed(ciphertext: Array(bytes))
            var plaintext: [UInt8] = []
            var peerClosed = false
            var failure: ChannelError?
            do throws(TLSError) {
                reading: while true {
                    switch try tls.readPlaintext(into: &plaintext) {
                    case .bytes: continue
                    case .wantMore: break reading
                    case .closed:
                        peerClosed = true
                        break reading
                    }
                }
            } catch {
                failure = .tls(error)
            }
            if let flushFailure = flushTLSOutput(tls, &state), failure == nil { failure = flushFailure }
            if let known = failure { failure = Self.record(known, &state) }
            return (state.handler, plaintext, peerClosed, failure)
        }
        if let handler {
            if let plaintext {
                if !plaintext.isEmpty { plaintext.withUnsafeBytes { handler.channelRead(self, $0) } }
            } else {
                handler.channelRead(self, bytes)
            }
        }
        if let failure {
            closeNow(error: failure)
            return false
        }
        if peerClosed {
            closeNow(error: nil)
            return false
        }
        return !isClosedNow
    }

    private var isClosedNow: Bool { state.withLock { $0.isClosed } }

    /// read(2) returned 0. With TLS, a stream that ends without close_notify is reported as `unexpectedEOF`.
    private func endOfStream() {
        let failure = state.withLock { state -> ChannelError? in
            guard let tls = state.tls, !state.isClosed, !state.isDraining else { return nil }
            tls.feedEndOfStream()
            var plaintext: [UInt8] = []
            do throws(TLSError) {
                _ = try tls.readPlaintext(into: &plaintext)
                return nil
            } catch {
                return Self.record(.tls(error), &state)
            }
        }
        closeNow(error: failure)
    }

    func selectableWritable() {
        let (waiters, flushedAndClosing, failure) = state.withLock {
            state -> ([@Sendable (Bool) -> Void], Bool, ChannelError?) in
            guard !state.isClosed else { return ([], false, nil) }
            guard !state.isWriting else {
                // The writer sends the queue and watches for room again if the kernel is full.
                watchWritable(false, &state)
                return ([], false, nil)
            }
            if let failure = Self.sendQueued(fd, &state.queue) { return ([], false, Self.record(.io(failure), &state)) }
            var waiters: [@Sendable (Bool) -> Void] = []
            if state.queue.count <= lowWatermark {
                swap(&waiters, &state.writabilityWaiters)
            }
            if state.queue.isEmpty {
                watchWritable(false, &state)
                if state.closeWhenFlushed { return (waiters, true, nil) }
            }
            return (waiters, false, nil)
        }
        for waiter in waiters { waiter(true) }
        if let failure {
            closeNow(error: failure)
        } else if flushedAndClosing {
            finishFlushedClose()
        }
    }

    /// Keeps the first failure the channel saw as its close's reason, and returns it.
    private static func record(_ failure: ChannelError, _ state: inout State) -> ChannelError {
        if let known = state.closeError { return known }
        state.closeError = failure
        return failure
    }

    private func closeNow(error: ChannelError?) {
        assert(loop.inEventLoop)
        typealias Closed = (
            handler: (any ChannelHandler)?, error: ChannelError?, writers: [@Sendable (Bool) -> Void],
            closers: [CheckedContinuation<Void, Never>]
        )
        let closed = state.withLock { state -> Closed? in
            guard !state.isClosed else { return nil }
            state.isClosed = true
            // Set with `isClosed`, under one lock: whoever finds the channel closed can ask why at once.
            let error = error.map { Self.record($0, &state) } ?? state.closeError
            if state.isRegistered { loop.deregister(fd: fd, token: state.token) }
            if state.isWriting {
                state.closesDescriptorAfterWrite = true
            } else {
                Glibc.close(fd)
            }
            let handler = state.handler
            state.handler = nil
            state.tls = nil
            defer {
                state.writabilityWaiters = []
                state.closeWaiters = []
            }
            return (handler, error, state.writabilityWaiters, state.closeWaiters)
        }
        guard let closed else { return }
        for waiter in closed.writers { waiter(false) }
        closed.handler?.channelClosed(self, error: closed.error)
        for waiter in closed.closers { waiter.resume() }
    }

    private func watchWritable(_ watch: Bool, _ state: inout State) {
        guard state.watchingWritable != watch else { return }
        state.watchingWritable = watch
        updateInterest(&state)
    }

    private func updateInterest(_ state: inout State) {
        guard state.isRegistered else { return }
        loop.reregister(fd: fd, token: state.token, events: interest(state))
    }

    private func interest(_ state: State) -> UInt32 {
        var events: UInt32 = state.readingPaused ? 0 : EpollEvents.input | EpollEvents.readHangup
        if state.watchingWritable { events |= EpollEvents.output }
        return events
    }
}
