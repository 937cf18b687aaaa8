import CLinuxIO
import Glibc
import Synchronization

/// A connected, non-blocking TCP socket owned by one `EventLoop`.
///
/// Reads happen on the loop thread and go to the `ChannelHandler`. Writes may come from any thread: when nothing
/// is queued they go straight to the socket under the channel's lock (a non-blocking write never blocks the
/// caller), and what the kernel does not take waits in a queue flushed on EPOLLOUT. Past `highWatermark` queued
/// bytes, writers are expected to wait (`waitUntilWritable`) until the queue drains below `lowWatermark`.
final class SocketChannel: EventLoopSelectable {
    let loop: EventLoop
    let remoteAddress: SocketAddress?
    let highWatermark: Int
    let lowWatermark: Int

    private let fd: Int32
    private let state: Mutex<State>

    private struct State {
        var handler: (any ChannelHandler)?
        var token: UInt64 = 0
        var isRegistered = false
        var isClosed = false
        var closeError: IOError?
        var closeWhenFlushed = false
        /// After `closeGracefully`: how long to drain the peer's bytes once our side is shut down.
        var drainTimeout: Duration?
        /// Output is shut down; reads are discarded until the peer's end of stream or the drain timer.
        var isDraining = false
        var readingPaused = false
        var watchingWritable = false
        var queue = WriteQueue()
        var writabilityWaiters: [CheckedContinuation<Bool, Never>] = []
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What became of bytes handed to `write`.
    enum WriteOutcome: Equatable {
        /// Written or queued; `mustWait` when the queue is past the high watermark.
        case accepted(mustWait: Bool)
        /// The channel is closed or closing; the bytes were dropped.
        case closed
    }

    init(fd: Int32, loop: EventLoop, highWatermark: Int = 1 << 20, lowWatermark: Int = 256 << 10) {
        self.fd = fd
        self.loop = loop
        self.remoteAddress = Socket.remoteAddress(of: fd)
        self.highWatermark = highWatermark
        self.lowWatermark = lowWatermark
        self.state = Mutex(State())
        Socket.setNoDelay(fd)
    }

    /// Starts reading into `handler`; must be called on the loop thread. Closes the socket if it cannot be registered.
    func start(handler: any ChannelHandler) {
        assert(loop.inEventLoop)
        let failure = state.withLock { state -> IOError? in
            guard !state.isClosed else { return nil }
            state.handler = handler
            do throws(IOError) {
                state.token = try loop.register(fd: fd, events: interest(state), self)
                state.isRegistered = true
                return nil
            } catch {
                return error
            }
        }
        if let failure { closeNow(error: failure) }
    }

    /// Replaces the handler that receives reads (e.g. HTTP → WebSocket after an upgrade); call on the loop thread.
    func setHandler(_ handler: any ChannelHandler) {
        state.withLock { $0.handler = handler }
    }

    var isClosed: Bool { state.withLock { $0.isClosed || $0.closeWhenFlushed } }

    /// Writes or queues `bytes`; callable from any thread. Writes keep the order of the calls.
    func write(_ bytes: [UInt8]) -> WriteOutcome {
        bytes.withUnsafeBytes { write($0) }
    }

    /// Writes or queues `bytes`; callable from any thread. Writes keep the order of the calls.
    func write(_ bytes: UnsafeRawBufferPointer) -> WriteOutcome {
        let (outcome, failure) = state.withLock { state -> (WriteOutcome, IOError?) in
            guard !state.isClosed, !state.closeWhenFlushed else { return (.closed, nil) }
            var pending = bytes
            if state.queue.isEmpty {
                while !pending.isEmpty {
                    let written = Glibc.send(fd, pending.baseAddress, pending.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
                    if written >= 0 {
                        pending = UnsafeRawBufferPointer(rebasing: pending[written...])
                        continue
                    }
                    let code = errno
                    if code == EINTR { continue }
                    if code == EAGAIN || code == EWOULDBLOCK { break }
                    return (.closed, IOError(operation: "send", errno: code))
                }
                if pending.isEmpty { return (.accepted(mustWait: false), nil) }
            }
            state.queue.append(pending)
            watchWritable(true, &state)
            return (.accepted(mustWait: state.queue.count > highWatermark), nil)
        }
        if let failure { close(error: failure) }
        return outcome
    }

    /// Suspends until the queue drains below the low watermark; returns false if the channel closed instead.
    func waitUntilWritable() async -> Bool {
        await withCheckedContinuation { continuation in
            let resumeNow: Bool? = state.withLock { state in
                if state.isClosed { return false }
                if state.queue.count <= lowWatermark { return true }
                state.writabilityWaiters.append(continuation)
                return nil
            }
            if let resumeNow { continuation.resume(returning: resumeNow) }
        }
    }

    /// Stops or resumes watching for incoming bytes, so a slow consumer pushes back on the peer through TCP.
    func setReadingPaused(_ paused: Bool) {
        state.withLock { state in
            guard state.readingPaused != paused, !state.isClosed else { return }
            state.readingPaused = paused
            updateInterest(&state)
        }
    }

    /// Closes once every accepted byte is written (or at once if none are queued); callable from any thread.
    func closeAfterFlush() {
        requestClose(drainTimeout: nil)
    }

    /// Writes what is queued, shuts down our direction (FIN), then discards the peer's bytes until it closes too
    /// or `drainTimeout` passes. Closing with unread bytes would make the kernel send a reset, which can destroy
    /// our last bytes (a WebSocket close frame, an HTTP error response) before the peer reads them.
    func closeGracefully(drainTimeout: Duration) {
        requestClose(drainTimeout: drainTimeout)
    }

    private func requestClose(drainTimeout: Duration?) {
        let flushed = state.withLock { state -> Bool in
            guard !state.isClosed, !state.closeWhenFlushed else { return false }
            state.closeWhenFlushed = true
            state.drainTimeout = drainTimeout
            return state.queue.isEmpty
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

    /// Closes the socket without flushing; callable from any thread. The handler hears `channelClosed` once.
    func close(error: IOError? = nil) {
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

    // MARK: Loop-thread side

    func selectableReadable() {
        loop.withReadBuffer { buffer in
            // A few reads per wake-up: enough to drain a burst, few enough to stay fair to the loop's other sockets.
            for _ in 0..<4 {
                let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
                if count > 0 {
                    let (handler, draining) = state.withLock { ($0.isClosed ? nil : $0.handler, $0.isDraining) }
                    if draining { continue }
                    guard let handler else { return }
                    handler.channelRead(self, UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                    if count < buffer.count { return }
                } else if count == 0 {
                    closeNow(error: nil)
                    return
                } else {
                    let code = errno
                    if code == EINTR { continue }
                    if code == EAGAIN || code == EWOULDBLOCK { return }
                    closeNow(error: IOError(operation: "read", errno: code))
                    return
                }
            }
        }
    }

    func selectableWritable() {
        let (waiters, flushedAndClosing, failure) = state.withLock { state -> ([CheckedContinuation<Bool, Never>], Bool, IOError?) in
            guard !state.isClosed else { return ([], false, nil) }
            while !state.queue.isEmpty {
                var code: Int32 = 0
                let written = state.queue.write { buffers in
                    var vectors = buffers.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count) }
                    let result = Glibc.writev(fd, &vectors, Int32(vectors.count))
                    if result < 0 { code = errno }
                    return max(0, result)
                }
                if written > 0 { continue }
                if code == EINTR { continue }
                if code == EAGAIN || code == EWOULDBLOCK { break }
                return ([], false, IOError(operation: "writev", errno: code))
            }
            var waiters: [CheckedContinuation<Bool, Never>] = []
            if state.queue.count <= lowWatermark {
                swap(&waiters, &state.writabilityWaiters)
            }
            if state.queue.isEmpty {
                watchWritable(false, &state)
                if state.closeWhenFlushed { return (waiters, true, nil) }
            }
            return (waiters, false, nil)
        }
        for waiter in waiters { waiter.resume(returning: true) }
        if let failure {
            closeNow(error: failure)
        } else if flushedAndClosing {
            finishFlushedClose()
        }
    }

    private func closeNow(error: IOError?) {
        assert(loop.inEventLoop)
        let closed = state.withLock { state -> (handler: (any ChannelHandler)?, writers: [CheckedContinuation<Bool, Never>], closers: [CheckedContinuation<Void, Never>])? in
            guard !state.isClosed else { return nil }
            state.isClosed = true
            state.closeError = error
            if state.isRegistered { loop.deregister(fd: fd, token: state.token) }
            Glibc.close(fd)
            let handler = state.handler
            state.handler = nil
            defer {
                state.writabilityWaiters = []
                state.closeWaiters = []
            }
            return (handler, state.writabilityWaiters, state.closeWaiters)
        }
        guard let closed else { return }
        for waiter in closed.writers { waiter.resume(returning: false) }
        closed.handler?.channelClosed(self, error: error)
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
