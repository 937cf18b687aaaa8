import Glibc

/// An IPv4 or IPv6 address and port, as the sockets API takes and returns it.
public struct SocketAddress: Sendable, Hashable, CustomStringConvertible {
    /// The numeric host, e.g. "127.0.0.1" or "::1".
    public let host: String
    /// The port number.
    public let port: Int
    /// The address family: AF_INET or AF_INET6.
    let family: Int32
    /// The raw sockaddr bytes (sockaddr_in or sockaddr_in6).
    let storage: [UInt8]

    public var description: String { family == AF_INET6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Parses an IP literal ("127.0.0.1", "::1", "[::1]"); nil for a host name, which needs resolving.
    init?(ipLiteral text: String, port: Int) {
        var literal = text
        if literal.hasPrefix("[") && literal.hasSuffix("]") { literal = String(literal.dropFirst().dropLast()) }
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
            self.init(copying: &v4, family: AF_INET)
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = in_port_t(UInt16(truncatingIfNeeded: port)).bigEndian
            self.init(copying: &v6, family: AF_INET6)
            return
        }
        return nil
    }

    /// Reads a sockaddr the kernel filled (accept, getsockname, getpeername, getaddrinfo).
    init?(sockaddr pointer: UnsafeRawPointer, length: Int) {
        let family = Int32(pointer.load(as: sockaddr.self).sa_family)
        switch family {
        case AF_INET where length >= MemoryLayout<sockaddr_in>.size:
            var v4 = pointer.load(as: sockaddr_in.self)
            self.init(copying: &v4, family: AF_INET)
        case AF_INET6 where length >= MemoryLayout<sockaddr_in6>.size:
            var v6 = pointer.load(as: sockaddr_in6.self)
            self.init(copying: &v6, family: AF_INET6)
        default:
            return nil
        }
    }

    private init<Address>(copying address: inout Address, family: Int32) {
        let bytes = withUnsafeBytes(of: &address) { Array($0) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let port: UInt16
        if family == AF_INET {
            var v4 = bytes.withUnsafeBytes { $0.load(as: sockaddr_in.self) }
            inet_ntop(AF_INET, &v4.sin_addr, &text, socklen_t(text.count))
            port = UInt16(bigEndian: v4.sin_port)
        } else {
            var v6 = bytes.withUnsafeBytes { $0.load(as: sockaddr_in6.self) }
            inet_ntop(AF_INET6, &v6.sin6_addr, &text, socklen_t(text.count))
            port = UInt16(bigEndian: v6.sin6_port)
        }
        self.host = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        self.port = Int(port)
        self.family = family
        self.storage = bytes
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length (`storage` is never empty: every
    /// initializer fills a sockaddr_in or sockaddr_in6).
    func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>?, socklen_t) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { raw in
            try body(raw.baseAddress?.assumingMemoryBound(to: sockaddr.self), socklen_t(raw.count))
        }
    }

    public static func == (lhs: SocketAddress, rhs: SocketAddress) -> Bool { lhs.storage == rhs.storage }
    public func hash(into hasher: inout Hasher) { hasher.combine(storage) }
}
