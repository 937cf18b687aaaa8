import CLinuxIO
import Glibc
import Synchronization

/// Opens a TCP connection without blocking: a non-blocking connect(2) completed on the loop's EPOLLOUT, trying
/// each resolved address in turn within one overall deadline.
enum TCPConnector {
    /// Connects to the first address that accepts; the channel is returned unstarted (no handler yet).
    static func connect(
        to addresses: [SocketAddress], on loop: EventLoop, timeout: Duration
    ) async throws(WebSocketError) -> SocketChannel {
        let deadline = MonotonicTime.now() + timeout.nanoseconds
        var lastError = WebSocketError.connectionFailed(address: addresses.first?.description ?? "", errno: EHOSTUNREACH)
        for address in addresses {
            let now = MonotonicTime.now()
            guard now < deadline else { throw WebSocketError.timedOut(.connect) }
            let attempt = ConnectAttempt(address: address, loop: loop)
            let outcome = await withTaskCancellationHandler {
                await attempt.run(timeout: .nanoseconds(Int64(deadline - now)))
            } onCancel: {
                attempt.finish(.failure(.cancelled))
            }
            switch outcome {
            case .success(let channel): return channel
            case .failure(let error):
                switch error {
                case .timedOut, .cancelled: throw error
                default: lastError = error
                }
            }
        }
        throw lastError
    }
}

/// One non-blocking connect(2) to one address.
private final class ConnectAttempt: EventLoopSelectable {
    let address: SocketAddress
    let loop: EventLoop
    private let state = Mutex(State())

    private struct State {
        var fd: Int32 = -1
        var token: UInt64?
        var continuation: CheckedContinuation<Result<SocketChannel, WebSocketError>, Never>?
        var outcome: Result<SocketChannel, WebSocketError>?
        var timer: EventLoopTimer?
    }

    init(address: SocketAddress, loop: EventLoop) {
        self.address = address
        self.loop = loop
    }

    func run(timeout: Duration) async -> Result<SocketChannel, WebSocketError> {
        await withCheckedContinuation { continuation in
            let early = state.withLock { state -> Result<SocketChannel, WebSocketError>? in
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let early {
                continuation.resume(returning: early)
                return
            }
            loop.execute { [self] in start(timeout: timeout) }
        }
    }

    /// Resolves the attempt once; closes the socket unless it became the channel. Callable from any thread.
    func finish(_ outcome: Result<SocketChannel, WebSocketError>) {
        guard loop.inEventLoop else {
            loop.execute { [self] in finish(outcome) }
            return
        }
        let continuation = state.withLock { state -> CheckedContinuation<Result<SocketChannel, WebSocketError>, Never>? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            state.timer?.cancel()
            state.timer = nil
            if let token = state.token {
                loop.deregister(fd: state.fd, token: token)
                state.token = nil
            }
            if case .failure = outcome, state.fd >= 0 {
                Glibc.close(state.fd)
                state.fd = -1
            }
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: outcome)
    }

    private func start(timeout: Duration) {
        if state.withLock({ $0.outcome != nil }) { return }
        let fd: Int32
        do throws(IOError) {
            fd = try Socket.makeTCP(family: address.family)
        } catch {
            finish(.failure(.connectionFailed(address: address.description, errno: error.errno)))
            return
        }
        state.withLock { $0.fd = fd }
        let result = address.withSockaddr { Glibc.connect(fd, $0, $1) }
        let code = errno
        if result == 0 {
            finish(.success(SocketChannel(fd: fd, loop: loop)))
            return
        }
        guard code == EINPROGRESS else {
            finish(.failure(.connectionFailed(address: address.description, errno: code)))
            return
        }
        do throws(IOError) {
            let token = try loop.register(fd: fd, events: EpollEvents.output, self)
            let timer = loop.scheduleTimer(in: timeout) { [self] in finish(.failure(.timedOut(.connect))) }
            state.withLock { state in
                state.token = token
                state.timer = timer
            }
        } catch {
            finish(.failure(.connectionFailed(address: address.description, errno: error.errno)))
        }
    }

    func selectableWritable() {
        let fd = state.withLock { $0.fd }
        let code = Socket.pendingError(of: fd)
        if code != 0 {
            finish(.failure(.connectionFailed(address: address.description, errno: code)))
            return
        }
        // Deregister the attempt before the channel registers the same descriptor.
        let token = state.withLock { state -> UInt64? in
            defer { state.token = nil }
            return state.token
        }
        if let token { loop.deregister(fd: fd, token: token) }
        finish(.success(SocketChannel(fd: fd, loop: loop)))
    }

    func selectableReadable() {
        // EPOLLERR/EPOLLHUP on a connecting socket: the connect failed; SO_ERROR says why.
        selectableWritable()
    }
}
