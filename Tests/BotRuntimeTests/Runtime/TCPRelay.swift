import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP relay in front of the sandbox that can go silent: `freezeExisting()` makes every open
/// connection swallow what passes in both directions without closing, as a peer behind a dead network would;
/// new connections pass normally. The only way to make a real server withhold its `pong`. It can also close the
/// connection of one HTTP request unanswered (`closeNextRequest(startingWith:)`), as a server closing a kept-alive
/// connection just as a request goes out does.
///
/// Test support on blocking sockets with dedicated threads (never Swift's cooperative pool).
final class TCPRelay: Sendable {
    let port: Int
    private let listener: Int32
    private let targetPort: Int
    private let connections = Mutex<[RelayedConnection]>([])
    private let isClosed = Atomic<Bool>(false)
    /// The start of the request whose connection is closed next, unanswered.
    private let requestToClose = Mutex<[UInt8]?>(nil)
    /// How many connections were closed for `closeNextRequest`.
    private let closedRequestCount = Atomic<Int>(0)

    init(targetPort: Int) throws {
        self.targetPort = targetPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw RelayError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw RelayError("bind/listen failed") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        self.port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// Makes every connection open now silent, in both directions, for good.
    func freezeExisting() {
        for connection in connections.withLock({ $0 }) { connection.frozen.store(true, ordering: .relaxed) }
    }

    /// Closes, once, the next connection on which the client sends bytes starting with `prefix` (a request line such
    /// as `POST /v1/media `), after reading them and before passing any on.
    func closeNextRequest(startingWith prefix: String) {
        requestToClose.withLock { $0 = Array(prefix.utf8) }
    }

    /// How many connections `closeNextRequest(startingWith:)` closed so far.
    var closedRequests: Int { closedRequestCount.load(ordering: .relaxed) }

    /// Closes the listener and every connection.
    func close() {
        guard !isClosed.exchange(true, ordering: .relaxed) else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in connections.withLock({ $0 }) { connection.shutdownBoth() }
    }

    private func acceptLoop() {
        defer { Glibc.close(listener) }
        while !isClosed.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = UInt16(targetPort).bigEndian
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                Glibc.close(client)
                Glibc.close(server)
                continue
            }
            let connection = RelayedConnection(client: client, server: server)
            connections.withLock { $0.append(connection) }
            Thread { [self] in Self.pump(from: client, to: server, connection, closingOn: closesConnection(startingWith:)) }.start()
            Thread { Self.pump(from: server, to: client, connection) }.start()
        }
    }

    /// Whether bytes the client sent, `read`, start the request whose connection is to close (consuming the wish).
    private func closesConnection(startingWith read: ArraySlice<UInt8>) -> Bool {
        let closes = requestToClose.withLock { prefix -> Bool in
            guard let wanted = prefix, read.starts(with: wanted) else { return false }
            prefix = nil
            return true
        }
        if closes { closedRequestCount.add(1, ordering: .relaxed) }
        return closes
    }

    private static func pump(
        from source: Int32, to destination: Int32, _ connection: RelayedConnection,
        closingOn closes: (ArraySlice<UInt8>) -> Bool = { _ in false }
    ) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            if connection.frozen.load(ordering: .relaxed) { continue }
            if closes(buffer[..<count]) { break }
            var offset = 0
            while offset < count {
                let written = buffer.withUnsafeBytes { bytes -> Int in
                    guard let base = bytes.baseAddress else { return -1 }
                    return write(destination, base + offset, count - offset)
                }
                guard written > 0 else { break }
                offset += written
            }
        }
        // The source ended: end the other side too (a frozen connection stays open until its peer gives up).
        if !connection.frozen.load(ordering: .relaxed) {
            shutdown(destination, Int32(SHUT_RDWR))
        }
        shutdown(source, Int32(SHUT_RDWR))
        connection.pumpEnded()
    }

    struct RelayError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

/// One relayed connection: the two sockets, closed once both directions have ended.
private final class RelayedConnection: Sendable {
    let client: Int32
    let server: Int32
    let frozen = Atomic<Bool>(false)
    /// Pumps ended so far; at 2 the sockets are closed (and must not be touched again: their numbers get reused).
    private let endedPumps = Mutex(0)

    init(client: Int32, server: Int32) {
        self.client = client
        self.server = server
    }

    func pumpEnded() {
        endedPumps.withLock { ended in
            ended += 1
            if ended == 2 {
                Glibc.close(client)
                Glibc.close(server)
            }
        }
    }

    func shutdownBoth() {
        endedPumps.withLock { ended in
            guard ended < 2 else { return }
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
        }
    }
}
