import Synchronization

/// Sends HTTP/1.1 requests on the module's event loops and keeps connections alive between them, per origin.
///
/// A request takes the most recently used idle connection to its origin, or opens one (resolving the host off the
/// cooperative pool, and with TLS for `https`). A connection goes back to the pool when its response leaves it
/// reusable; one unused for `idleTimeout` is closed. A request on a kept connection that the server closed before
/// any byte of a response is sent once more on a new connection if its method is idempotent (or it carries an
/// `Idempotency-Key`, or its caller in this package says a repeat does no harm); otherwise the caller gets
/// `connectionClosed` and decides. A request that found its connection
/// closed before a byte of it was written goes out on another connection, whatever its method.
///
/// ```swift
/// let client = HTTPClient()                              // or HTTPClient.shared
/// let origin = try HTTPOrigin(url: URL(string: "http://127.0.0.1:8080")!)
/// let response = try await client.send(HTTPRequest(method: .get, target: "/v1/health"), to: origin)
/// ```
public final class HTTPClient: Sendable {
    /// One client for the whole process, with the default configuration on the shared event loops.
    public static let shared = HTTPClient()

    public let configuration: HTTPClientConfiguration
    private let idle = Mutex<[HTTPOrigin: [HTTPClientConnection]]>([:])
    /// Called after a connection joined or left the idle pool, so that a test waits for the pool's state instead of
    /// polling it.
    private let idlePoolChanged: @Sendable () -> Void

    public convenience init(configuration: HTTPClientConfiguration = .init()) {
        self.init(configuration: configuration, idlePoolChanged: {})
    }

    init(configuration: HTTPClientConfiguration, idlePoolChanged: @escaping @Sendable () -> Void) {
        self.configuration = configuration
        self.idlePoolChanged = idlePoolChanged
    }

    /// Sends `request` to `origin` and returns its whole response, whatever its status. Adds `Host` when missing.
    ///
    /// - Parameter timeout: the longest the whole exchange may take, from connecting to the last byte of the
    ///   response, a repeat on a new connection included (`configuration.requestTimeout` when nil); connecting
    ///   takes at most `configuration.connectTimeout` of it. A server that trickles its response cannot hold the
    ///   caller longer.
    /// - Throws: `HTTPClientError`: `.timedOut` when `timeout` passes (the connection is closed), `.cancelled` when
    ///   the calling task is cancelled (the connection is closed).
    public func send(
        _ request: HTTPRequest, to origin: HTTPOrigin, timeout: Duration? = nil
    ) async throws(HTTPClientError) -> HTTPResponse {
        try await send(request, to: origin, timeout: timeout, repeatable: false)
    }

    /// `send(_:to:timeout:)` for a caller that knows sending `request` twice does no harm whatever its method
    /// (`repeatable`: a key the server deduplicates by, a second upload that is merely unused), so that it goes out
    /// again when a kept connection closes under it, as an idempotent request does. `deadlineClock` measures
    /// `timeout` in place of the monotonic clock (a test's virtual clock); connecting still takes at most
    /// `configuration.connectTimeout` of real time. `maxBodyBytes` is this request's limit on the response body in
    /// place of `configuration.parserLimits.maxBodyBytes`, for a response the caller knows may be larger.
    package func send(
        _ request: HTTPRequest, to origin: HTTPOrigin, timeout: Duration?, repeatable: Bool,
        deadlineClock: (any HTTPDeadlineClock)? = nil, maxBodyBytes: Int? = nil
    ) async throws(HTTPClientError) -> HTTPResponse {
        var request = request
        if !request.headers.contains(name: "Host") { request.headers.add(name: "Host", value: origin.hostHeader) }
        let bytes = request.serialized()
        var now: ContinuousClock.Instant { deadlineClock?.now ?? .now }
        let deadline = now.advanced(by: timeout ?? configuration.requestTimeout)
        let mayRepeat = repeatable || request.method.isIdempotent || request.headers.contains(name: "Idempotency-Key")
        var reuses = true
        var attempts = 0
        while true {
            attempts += 1
            if Task.isCancelled { throw .cancelled }
            let kept = reuses ? takeIdleConnection(to: origin) : nil
            let connection: HTTPClientConnection
            if let kept {
                connection = kept
            } else {
                let remaining = now.duration(to: deadline)
                guard remaining > .zero else { throw .timedOut(.connect) }
                connection = try await open(origin, timeout: min(remaining, configuration.connectTimeout))
            }
            guard now < deadline else {
                connection.close()
                throw .timedOut(.response)
            }
            switch await connection.exchange(
                bytes, method: request.method, deadline: deadline, clock: deadlineClock, maxBodyBytes: maxBodyBytes)
            {
            case .response(let response, let reusable):
                if reusable { keep(connection) } else { connection.close() }
                return response
            case .failure(.connectionClosed, receivedNothing: true) where kept != nil && mayRepeat:
                // The server closed the kept connection as the request went out: once more on a fresh one.
                reuses = false
            case .notSent(.connectionClosed) where kept != nil || attempts == 1:
                // Closed before a byte of the request was written (the server's idle timeout): nothing to repeat.
                reuses = kept != nil
            case .failure(let error, _), .notSent(let error):
                throw error
            }
        }
    }

    /// Closes every idle connection (connections carrying a request finish it first).
    public func closeIdleConnections() {
        let connections = idle.withLock { idle -> [HTTPClientConnection] in
            defer { idle.removeAll() }
            return idle.values.flatMap { $0 }
        }
        for connection in connections { connection.close() }
        if !connections.isEmpty { idlePoolChanged() }
    }

    /// How many idle connections the pool holds now, over every origin.
    public var idleConnectionCount: Int {
        idle.withLock { $0.values.reduce(0) { $0 + $1.count } }
    }

    private func takeIdleConnection(to origin: HTTPOrigin) -> HTTPClientConnection? {
        while let connection = idle.withLock({ $0[origin]?.popLast() }) {
            if connection.unpark() { return connection }
        }
        return nil
    }

    private func keep(_ connection: HTTPClientConnection) {
        // Parked before the pool can hand it out, so that its idle timer belongs to this stay in the pool.
        guard connection.park(timeout: configuration.idleTimeout) else {
            connection.close()
            return
        }
        let limit = configuration.maxIdleConnectionsPerOrigin
        let kept = idle.withLock { idle -> Bool in
            guard idle[connection.origin, default: []].count < limit else { return false }
            idle[connection.origin, default: []].append(connection)
            return true
        }
        if kept { idlePoolChanged() } else { connection.close() }
    }

    private func forget(_ connection: HTTPClientConnection) {
        let forgotten = idle.withLock { idle -> Bool in
            guard let index = idle[connection.origin]?.firstIndex(where: { $0 === connection }) else { return false }
            idle[connection.origin]?.remove(at: index)
            if idle[connection.origin]?.isEmpty == true { idle[connection.origin] = nil }
            return true
        }
        if forgotten { idlePoolChanged() }
    }

    private func open(_ origin: HTTPOrigin, timeout: Duration) async throws(HTTPClientError) -> HTTPClientConnection {
        var tls: TLSConfiguration?
        if origin.isSecure {
            tls = configuration.tls
            if tls == nil {
                do throws(TLSError) {
                    tls = try TLSConfiguration.systemDefault
                } catch {
                    throw .tls(error)
                }
            }
        }
        let channel: SocketChannel
        do throws(WebSocketError) {
            let addresses = try await NameResolver.resolve(host: origin.host, port: origin.port)
            if Task.isCancelled { throw .cancelled }
            let loop = try configuration.eventLoopGroup.next()
            channel = try await TCPConnector.connect(to: addresses, on: loop, timeout: timeout)
        } catch {
            throw HTTPClientError(error)
        }
        let connection = HTTPClientConnection(
            origin: origin, channel: channel, limits: configuration.parserLimits,
            closedWhileIdle: { [weak self] connection in self?.forget(connection) })
        try await connection.start(tls: tls, serverName: origin.host)
        return connection
    }
}

extension HTTPMethod {
    /// Whether sending the request twice has the effect of sending it once (RFC 9110 §9.2.2), so that it may be
    /// repeated after a connection failed under it.
    public var isIdempotent: Bool {
        self == .get || self == .head || self == .put || self == .delete || self == .options || self == "TRACE"
    }
}
