import CLinuxIO
import Glibc

/// Thin wrappers over the socket system calls the event loop uses; every descriptor they create is
/// non-blocking and close-on-exec.
enum Socket {
    /// Creates a non-blocking TCP socket for `family`.
    static func makeTCP(family: Int32) throws(IOError) -> Int32 {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = Glibc.socket(family, type, 0)
        guard fd >= 0 else { throw IOError(operation: "socket", errno: errno) }
        return fd
    }

    /// Sends small writes at once instead of waiting to batch them (Nagle off): WebSocket frames are latency-bound.
    static func setNoDelay(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Creates a listening socket bound to `address` (port 0 lets the kernel choose).
    static func listen(on address: SocketAddress, backlog: Int32 = 1024) throws(IOError) -> Int32 {
        let fd = try makeTCP(family: address.family)
        var on: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockaddr { Glibc.bind(fd, $0, $1) }
        guard bound == 0 else {
            let code = errno
            Glibc.close(fd)
            throw IOError(operation: "bind", errno: code)
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let code = errno
            Glibc.close(fd)
            throw IOError(operation: "listen", errno: code)
        }
        return fd
    }

    /// The address a socket is bound to.
    static func localAddress(of fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafeBytes(of: &storage) { raw in
            raw.baseAddress.flatMap { SocketAddress(sockaddr: $0, length: Int(length)) }
        }
    }

    /// The address of the connected peer.
    static func remoteAddress(of fd: Int32) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard result == 0 else { return nil }
        return withUnsafeBytes(of: &storage) { raw in
            raw.baseAddress.flatMap { SocketAddress(sockaddr: $0, length: Int(length)) }
        }
    }

    /// The pending error of a socket (SO_ERROR), e.g. the outcome of a non-blocking connect.
    static func pendingError(of fd: Int32) -> Int32 {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else { return errno }
        return code
    }
}
