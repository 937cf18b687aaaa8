import Foundation
import Glibc

/// Resolves host names to socket addresses with getaddrinfo on a short-lived thread of its own, never on the
/// cooperative pool (nor on Dispatch's global queues, whose worker threads the pool shares on Linux); IP literals
/// skip the resolver entirely.
enum NameResolver {
    /// The TCP addresses of `host` at `port`, in the resolver's preferred order.
    static func resolve(host: String, port: Int) async throws(WebSocketError) -> [SocketAddress] {
        if let literal = SocketAddress(ipLiteral: host, port: port) { return [literal] }
        let result = await DedicatedThread.run(named: "chatterbots.resolver", stackSize: 256 << 10) {
            blockingResolve(host: host, port: port)
        }
        return try result.get()
    }

    private static func blockingResolve(host: String, port: Int) -> Result<[SocketAddress], WebSocketError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        hints.ai_flags = AI_ADDRCONFIG
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            return .failure(.nameResolutionFailed(host: host, reason: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let raw = entry.pointee.ai_addr,
               let address = SocketAddress(sockaddr: UnsafeRawPointer(raw), length: Int(entry.pointee.ai_addrlen)),
               !addresses.contains(address) {
                addresses.append(address)
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else {
            return .failure(.nameResolutionFailed(host: host, reason: "no IPv4 or IPv6 address"))
        }
        return .success(addresses)
    }
}
