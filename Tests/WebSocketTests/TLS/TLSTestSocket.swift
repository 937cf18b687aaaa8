#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import TestSupport

/// A blocking IPv4 loopback TCP socket for tests that run on a `TLSTestThread`. Reads time out after
/// the hang guard so a silent peer fails the test instead of hanging it. Async tests call its blocking methods
/// only inside `TLSTestThread.run`: on the cooperative pool's two threads, two blocked tests stall the process.
final class TLSTestSocket: Sendable {
    let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    /// Connects to 127.0.0.1:`port`.
    static func connect(toLoopbackPort port: Int) throws -> TLSTestSocket {
        let socket = try TLSTestSocket(descriptor: makeSocket())
        var address = loopbackAddress(port: 0)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket.descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw TLSTestSocketError(operation: "connect") }
        try socket.setReceiveTimeout()
        return socket
    }

    /// Listens on 127.0.0.1 with an OS-chosen port; returns the listener and its port.
    static func listenOnLoopback() throws -> (listener: TLSTestSocket, port: Int) {
        let socket = try TLSTestSocket(descriptor: makeSocket())
        var address = loopbackAddress(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket.descriptor, $0, length) == 0 && getsockname(socket.descriptor, $0, &length) == 0
            }
        }
        guard bound, listen(socket.descriptor, 4) == 0 else { throw TLSTestSocketError(operation: "bind/listen") }
        try socket.setReceiveTimeout()  // bounds accept() too
        return (socket, Int(UInt16(bigEndian: address.sin_port)))
    }

    func accept() throws -> TLSTestSocket {
        let connection = Glibc.accept(descriptor, nil, nil)
        guard connection >= 0 else { throw TLSTestSocketError(operation: "accept") }
        let socket = TLSTestSocket(descriptor: connection)
        try socket.setReceiveTimeout()
        return socket
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw TLSTestSocketError(operation: "send") }
            offset += sent
        }
    }

    /// The next bytes from the peer; empty at end of stream.
    func receive() throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw TLSTestSocketError(operation: "recv") }
        return Array(buffer[0..<count])
    }

    private func setReceiveTimeout() throws {
        var timeout = timeval(tv_sec: Int(Duration.hangGuard.components.seconds), tv_usec: 0)
        guard setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0 else {
            throw TLSTestSocketError(operation: "setsockopt")
        }
    }

    private static func makeSocket() throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TLSTestSocketError(operation: "socket") }
        return descriptor
    }

    private static func loopbackAddress(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port.bigEndian)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        return address
    }
}

struct TLSTestSocketError: Error, CustomStringConvertible {
    let operation: String
    let code = errno
    var description: String { "\(operation) failed: \(String(cString: strerror(code)))" }
}
