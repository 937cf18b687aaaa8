import Foundation
import Synchronization

/// Opens WebSocket connections to `ws://` and `wss://` URLs.
public enum WebSocketClient {
    /// Resolves the host (off the cooperative pool), connects, runs the TLS handshake for `wss://`, sends the
    /// upgrade request and verifies the server's 101 response (Sec-WebSocket-Accept included).
    ///
    /// - Throws: `.invalidURL`, `.nameResolutionFailed`, `.connectionFailed` (errno), `.timedOut(phase)`,
    ///   `.tls` (e.g. an untrusted certificate or a host name mismatch), `.handshakeRejected` (the server's
    ///   status and body), `.invalidHandshakeResponse`, `.cancelled`, or `.eventLoopUnavailable` (no file
    ///   descriptor left for the event loops: raise RLIMIT_NOFILE).
    public static func connect(
        to url: URL, configuration: WebSocketClientConfiguration = .init()
    ) async throws(WebSocketError) -> WebSocketConnection {
        let target = try WebSocketURL(url)
        let tlsConfiguration: TLSConfiguration?
        if target.isSecure {
            if let configured = configuration.tls {
                tlsConfiguration = configured
            } else {
                do throws(TLSError) {
                    tlsConfiguration = try TLSConfiguration.systemDefault
                } catch {
                    throw .tls(error)
                }
            }
        } else {
            tlsConfiguration = nil
        }
        let addresses = try await NameResolver.resolve(host: target.host, port: target.port)
        if Task.isCancelled { throw .cancelled }
        let loop = try configuration.eventLoopGroup.next()
        let channel = try await TCPConnector.connect(to: addresses, on: loop, timeout: configuration.connectTimeout)

        let key = WebSocketHandshake.generateKey()
        let request = HTTPRequest(
            method: .get, target: target.requestTarget,
            headers: WebSocketHandshake.requestHeaders(
                host: target.hostHeader, key: key, protocols: configuration.subprotocols,
                additional: configuration.headers))
        let handshake = ClientHandshake(
            channel: channel, request: request, key: key, configuration: configuration)
        return try await handshake.run(tls: tlsConfiguration, serverName: target.host)
    }
}

/// The client side of the opening handshake on a connected channel: (TLS,) request, 101 response, validation.
private final class ClientHandshake: ChannelHandler {
    private let request: HTTPRequest
    private let key: String
    private let configuration: WebSocketClientConfiguration
    private let state: Mutex<State>
    private let pendingChannel: SocketChannel

    private struct State {
        var parser = HTTPResponseParser(limits: HTTPParserLimits(maxHeaderBytes: 16 * 1024, maxBodyBytes: 64 * 1024))
        var continuation: CheckedContinuation<Result<WebSocketConnection, WebSocketError>, Never>?
        var outcome: Result<WebSocketConnection, WebSocketError>?
        var timer: EventLoopTimer?
    }

    init(channel: SocketChannel, request: HTTPRequest, key: String, configuration: WebSocketClientConfiguration) {
        self.pendingChannel = channel
        self.request = request
        self.key = key
        self.configuration = configuration
        self.state = Mutex(State())
    }

    /// Runs the handshake, first over TLS when `tls` is given (wss://), verifying the server as `serverName`.
    func run(tls: TLSConfiguration?, serverName: String) async throws(WebSocketError) -> WebSocketConnection {
        let channel = pendingChannel
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Cancelled before it started: `finish` has already recorded the outcome and closed the channel.
                let early = state.withLock { state -> Result<WebSocketConnection, WebSocketError>? in
                    if let outcome = state.outcome { return outcome }
                    state.continuation = continuation
                    return nil
                }
                if let early {
                    continuation.resume(returning: early)
                    return
                }
                channel.loop.execute { [self] in start(tls: tls, serverName: serverName) }
            }
        } onCancel: {
            finish(.failure(.cancelled))
        }
        return try result.get()
    }

    private func start(tls: TLSConfiguration?, serverName: String) {
        let channel = pendingChannel
        if let tls {
            do throws(TLSError) {
                try channel.enableTLS(client: tls, serverName: serverName)
            } catch {
                finish(.failure(.tls(error)))
                return
            }
        }
        let timer = channel.loop.scheduleTimer(in: configuration.handshakeTimeout) { [weak self] in
            guard let self else { return }
            finish(.failure(.timedOut(channel.isTLSHandshakeComplete ? .handshake : .tlsHandshake)))
        }
        let alreadyFinished = state.withLock { state -> Bool in
            state.timer = timer
            return state.outcome != nil
        }
        if alreadyFinished {
            timer.cancel()
            channel.close()
            return
        }
        channel.start(handler: self)
        _ = channel.write(request.serialized())
    }

    /// Resolves the handshake once; on failure the channel is closed.
    private func finish(_ outcome: Result<WebSocketConnection, WebSocketError>) {
        let (first, continuation) = state.withLock {
            state -> (Bool, CheckedContinuation<Result<WebSocketConnection, WebSocketError>, Never>?) in
            guard state.outcome == nil else { return (false, nil) }
            state.outcome = outcome
            state.timer?.cancel()
            state.timer = nil
            defer { state.continuation = nil }
            return (true, state.continuation)
        }
        guard first else { return }
        if case .failure = outcome { pendingChannel.close() }
        continuation?.resume(returning: outcome)
    }

    func channelRead(_ channel: SocketChannel, _ bytes: UnsafeRawBufferPointer) {
        let parsed = state.withLock { state -> Result<(HTTPResponse, [UInt8])?, WebSocketError> in
            guard state.outcome == nil else { return .success(nil) }
            state.parser.append(bytes)
            do throws(HTTPParseError) {
                guard let response = try state.parser.nextResponse() else { return .success(nil) }
                return .success((response, state.parser.takeBufferedBytes()))
            } catch {
                return .failure(.invalidHandshakeResponse(reason: error.description))
            }
        }
        switch parsed {
        case .success(nil): return
        case .success(let (response, leftover)?): complete(response, leftover: leftover)
        case .failure(let error): finish(.failure(error))
        }
    }

    func channelClosed(_ channel: SocketChannel, error: ChannelError?) {
        switch error {
        case .tls(let tlsError)?:
            finish(.failure(.tls(tlsError)))
        case .io(let ioError)?:
            finish(.failure(.connectionFailed(address: channel.remoteAddress?.description ?? "", errno: ioError.errno)))
        case nil:
            // A refusal may be delimited by the close itself (no Content-Length).
            let response = state.withLock { state -> HTTPResponse? in
                try? state.parser.endOfInput()
            }
            if let response, response.status.code != 101 {
                complete(response, leftover: [])
            } else {
                finish(.failure(.invalidHandshakeResponse(reason: "the server closed the connection before completing the handshake")))
            }
        }
    }

    private func complete(_ response: HTTPResponse, leftover: [UInt8]) {
        guard response.status.code == 101 else {
            finish(.failure(.handshakeRejected(status: response.status.code, headers: response.headers, body: response.body)))
            return
        }
        do throws(WebSocketHandshakeError) {
            try WebSocketHandshake.validateResponse(
                status: response.status.code, headers: response.headers, key: key,
                requestedProtocols: configuration.subprotocols)
        } catch {
            finish(.failure(.invalidHandshakeResponse(reason: error.description)))
            return
        }
        let connection = WebSocketConnection(
            channel: pendingChannel, role: .client, limits: configuration.limits, closeTimeout: configuration.closeTimeout,
            handshakeRequest: request, handshakeResponse: response)
        let won = state.withLock { state -> Bool in state.outcome == nil }
        guard won else { return }
        // Still on the loop thread: the connection takes over before the next read.
        connection.activate(initialBytes: leftover)
        finish(.success(connection))
    }
}
