import CLinuxIO
import Glibc
import Synchronization

/// A listening TCP socket that accepts connections on its loop and hands each to a loop of the group.
final class ServerSocket: EventLoopSelectable {
    let localAddress: SocketAddress
    private let fd: Int32
    private let loop: EventLoop
    private let group: EventLoopGroup
    private let onAccept: @Sendable (Int32, EventLoop) -> Void
    private let state = Mutex(State())

    private struct State {
        var token: UInt64 = 0
        var isClosed = false
        /// Set when accept ran out of descriptors; accepting resumes after a short pause instead of spinning.
        var isBackingOff = false
    }

    /// Binds and listens on `address`, watched by `loop` (one of `group`'s); `onAccept` receives each accepted descriptor on the loop chosen for it
    /// (on that loop's thread) and owns it from then on.
    static func listen(
        on address: SocketAddress, loop: EventLoop, group: EventLoopGroup, onAccept: @escaping @Sendable (Int32, EventLoop) -> Void
    ) async throws(IOError) -> ServerSocket {
        let fd = try Socket.listen(on: address)
        guard let local = Socket.localAddress(of: fd) else {
            let code = errno
            Glibc.close(fd)
            throw IOError(operation: "getsockname", errno: code)
        }
        let server = ServerSocket(fd: fd, localAddress: local, loop: loop, group: group, onAccept: onAccept)
        let result: Result<Void, IOError> = await withCheckedContinuation { continuation in
            server.loop.execute {
                do throws(IOError) {
                    let token = try server.loop.register(fd: fd, events: EpollEvents.input, server)
                    server.state.withLock { $0.token = token }
                    continuation.resume(returning: .success(()))
                } catch {
                    Glibc.close(fd)
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        try result.get()
        return server
    }

    private init(
        fd: Int32, localAddress: SocketAddress, loop: EventLoop, group: EventLoopGroup,
        onAccept: @escaping @Sendable (Int32, EventLoop) -> Void
    ) {
        self.fd = fd
        self.localAddress = localAddress
        self.loop = loop
        self.group = group
        self.onAccept = onAccept
    }

    /// Stops accepting and closes the listening socket; returns once it is closed.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute { [self] in
                state.withLock { state in
                    guard !state.isClosed else { return }
                    state.isClosed = true
                    loop.deregister(fd: fd, token: state.token)
                    Glibc.close(fd)
                }
                continuation.resume()
            }
        }
    }

    func selectableReadable() {
        // Accept everything pending: level-triggered epoll would wake us again anyway.
        while true {
            let accepted = accept4(fd, nil, nil, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            if accepted >= 0 {
                // The group runs (this listener's loop is one of its loops) unless it was shut down under it.
                guard let target = try? group.next() else {
                    Glibc.close(accepted)
                    continue
                }
                let handOver = onAccept
                target.execute { handOver(accepted, target) }
                continue
            }
            let code = errno
            switch code {
            case EINTR, ECONNABORTED, EPROTO:
                continue
            case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                backOff()
                return
            default:
                return
            }
        }
    }

    func selectableWritable() {}

    /// Out of descriptors: stop watching the listener for 100 ms rather than waking in a loop on the same backlog.
    private func backOff() {
        let token = state.withLock { state -> UInt64? in
            guard !state.isClosed, !state.isBackingOff else { return nil }
            state.isBackingOff = true
            return state.token
        }
        guard let token else { return }
        loop.reregister(fd: fd, token: token, events: 0)
        loop.scheduleTimer(in: .milliseconds(100)) { [self] in
            state.withLock { state in
                state.isBackingOff = false
                if !state.isClosed { loop.reregister(fd: fd, token: token, events: EpollEvents.input) }
            }
        }
    }
}
