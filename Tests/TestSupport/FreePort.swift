import Foundation
import Glibc
import Synchronization

/// A loopback port to hand to a process that must listen on a port known in advance (shards finding the sandbox
/// of shard 0).
package enum FreePort {
    /// A port nothing listens on now, below the kernel's ephemeral range: a port the kernel hands out (to another
    /// test's listener bound to 0, or as the local end of an outgoing connection) could be taken again between this
    /// call and the moment the child binds it. A port is handed out once per process, so that two tests running
    /// at once never get the same one before either child binds it.
    package static func take() throws -> Int {
        let lowest = 10_000
        let below = ephemeralRangeStart()
        guard below > lowest + 100 else { throw ProcessTestError("the ephemeral ports start at \(below): no room below") }
        for _ in 0..<200 {
            let port = Int.random(in: lowest..<below)
            guard try canBind(port), handedOut.withLock({ $0.insert(port).inserted }) else { continue }
            return port
        }
        throw ProcessTestError("no free port in \(lowest)..<\(below) after 200 tries")
    }

    /// The ports `take()` returned in this process.
    private static let handedOut = Mutex<Set<Int>>([])

    /// The first port of `/proc/sys/net/ipv4/ip_local_port_range` (32768 by default).
    private static func ephemeralRangeStart() -> Int {
        let text = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)) ?? ""
        return text.split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
    }

    private static func canBind(_ port: Int) throws -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProcessTestError("socket: errno \(errno)") }
        defer { close(fd) }
        return bindLoopback(fd, port: port)
    }

    /// Binds `fd` to 127.0.0.1:`port`; false when the port is taken.
    fileprivate static func bindLoopback(_ fd: Int32, port: Int) -> Bool {
        withLoopbackAddress(port: port) { bind(fd, $0, $1) } == 0
    }

    /// A TCP socket connected to 127.0.0.1:`port` that has sent nothing, its reads bounded by 60 s.
    package static func connectedSocket(to port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProcessTestError("socket: errno \(errno)") }
        guard withLoopbackAddress(port: port, { connect(fd, $0, $1) }) == 0 else {
            let code = errno
            close(fd)
            throw ProcessTestError("cannot connect to port \(port): errno \(code)")
        }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    private static func withLoopbackAddress(
        port: Int, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Int32
    ) -> Int32 {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}

/// A socket listening on a loopback port that never accepts: it holds the port (a server started on it fails with
/// EADDRINUSE), and tells whether anyone connected, since the kernel queues connections it does not accept.
package final class SilentListener {
    package let port: Int
    private let fd: Int32

    /// Listens on `port` (a `FreePort.take()`).
    package init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ProcessTestError("socket: errno \(errno)") }
        guard FreePort.bindLoopback(fd, port: port), listen(fd, 8) == 0 else {
            close(fd)
            throw ProcessTestError("cannot listen on 127.0.0.1:\(port): errno \(errno)")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        self.port = port
    }

    deinit { close(fd) }

    /// Whether a connection waits to be accepted now (it is then accepted and closed).
    package func hasPendingConnection() -> Bool {
        let accepted = accept(fd, nil, nil)
        guard accepted >= 0 else { return false }
        close(accepted)
        return true
    }
}
