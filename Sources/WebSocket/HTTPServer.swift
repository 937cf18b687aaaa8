import Glibc
import Synchronization

/// An HTTP/1.1 server that serves plain requests (keep-alive) and WebSocket upgrades on one listener, with
/// optional TLS.
///
/// Every connection lives on an event loop of the configured group; the responder runs on the cooperative pool.
/// Malformed or oversized requests are answered 400/413/431 (501 for an unknown transfer coding) and the
/// connection is closed.
public final class HTTPServer: Sendable {
    /// The port the server listens on (the one the kernel chose when started with port 0).
    public var port: Int { localAddress.port }
    /// The address the server listens on.
    public let localAddress: SocketAddress

    private let listener: ServerSocket
    private let registry: Registry

    /// The open connections, so that `shutdown` can close them.
    private final class Registry: Sendable {
        let connections = Mutex<[ObjectIdentifier: HTTPServerConnection]>([:])
    }

    /// Starts listening on `host:port` (an IP literal, or a name resolved off the cooperative pool).
    /// - Throws: `HTTPServerError.cannotListen` when the address cannot be bound (e.g. the port is in use),
    ///   `.invalidHost` when the host does not resolve, `.eventLoopUnavailable` when the event loops cannot start
    ///   (no file descriptor left: raise RLIMIT_NOFILE).
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, tls: TLSServerConfiguration? = nil,
        configuration: HTTPServerConfiguration = .init(), responder: some HTTPResponder
    ) async throws(HTTPServerError) -> HTTPServer {
        let addresses: [SocketAddress]
        do throws(WebSocketError) {
            addresses = try await NameResolver.resolve(host: host, port: port)
        } catch {
            throw .invalidHost(host, reason: error.description)
        }
        guard let address = addresses.first else { throw .invalidHost(host, reason: "no address") }
        let registry = Registry()
        let context = HTTPServerConnection.Context(
            responder: responder, configuration: configuration,
            register: { connection in registry.connections.withLock { $0[ObjectIdentifier(connection)] = connection } },
            unregister: { connection in
                _ = registry.connections.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
            })
        let loop: EventLoop
        do throws(WebSocketError) {
            loop = try configuration.eventLoopGroup.next()
        } catch {
            if case .eventLoopUnavailable(let cause) = error { throw .eventLoopUnavailable(cause) }
            throw .eventLoopGroupShutDown
        }
        let listener: ServerSocket
        do throws(IOError) {
            listener = try await ServerSocket.listen(on: address, loop: loop, group: configuration.eventLoopGroup) { fd, loop in
                if let limit = configuration.maxConnections, registry.connections.withLock({ $0.count }) >= limit {
                    _ = Glibc.close(fd)
                    return
                }
                HTTPServerConnection.accept(fd: fd, loop: loop, tls: tls, context: context)
            }
        } catch {
            throw .cannotListen(address: address.description, errno: error.errno)
        }
        return HTTPServer(listener: listener, registry: registry)
    }

    /// Starts a server whose responder is `respond`.
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, tls: TLSServerConfiguration? = nil,
        configuration: HTTPServerConfiguration = .init(),
        respond: @escaping @Sendable (HTTPRequest) async -> HTTPServerResponse
    ) async throws(HTTPServerError) -> HTTPServer {
        try await start(host: host, port: port, tls: tls, configuration: configuration, responder: HTTPClosureResponder(respond))
    }

    private init(listener: ServerSocket, registry: Registry) {
        self.listener = listener
        self.localAddress = listener.localAddress
        self.registry = registry
    }

    /// The number of open connections (HTTP and WebSocket).
    public var connectionCount: Int { registry.connections.withLock { $0.count } }

    /// The open connections, for tests that look inside one.
    var openConnections: [HTTPServerConnection] { registry.connections.withLock { Array($0.values) } }

    /// Stops accepting, closes WebSocket connections with 1001 (going away) and HTTP connections at once, and
    /// returns when every connection is closed (WebSocket close handshakes are bounded by their close timeout).
    public func shutdown() async {
        await listener.close()
        let open = registry.connections.withLock { Array($0.values) }
        await withTaskGroup(of: Void.self) { group in
            for connection in open {
                group.addTask { await connection.shutdown() }
            }
        }
    }
}

/// Why an `HTTPServer` could not start.
public enum HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The host name did not resolve to an address.
    case invalidHost(String, reason: String)
    /// bind/listen failed with this errno (EADDRINUSE: another process has the port; EACCES: a privileged port).
    case cannotListen(address: String, errno: Int32)
    /// The event loops could not start (no file descriptor left, typically); the error says what to do.
    case eventLoopUnavailable(EventLoopStartError)
    /// The configuration's event-loop group was shut down: listen with a running group (or `.shared`).
    case eventLoopGroupShutDown

    public var description: String {
        switch self {
        case .invalidHost(let host, let reason): "cannot listen on \(host): \(reason)"
        case .cannotListen(let address, let code): "cannot listen on \(address): \(String(cString: strerror(code))) (errno \(code))"
        case .eventLoopUnavailable(let error): "cannot listen: \(error)"
        case .eventLoopGroupShutDown: "cannot listen: the event-loop group was shut down"
        }
    }
}
