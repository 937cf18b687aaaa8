import Glibc
import Synchronization

/// One accepted connection of an `HTTPServer`: parses requests, asks the responder, writes responses (keep-alive),
/// and hands the socket to a `WebSocketConnection` when the responder accepts an upgrade.
final class HTTPServerConnection: ChannelHandler {
    /// What every connection of a server shares.
    struct Context: Sendable {
        var responder: any HTTPResponder
        var configuration: HTTPServerConfiguration
        var register: @Sendable (HTTPServerConnection) -> Void
        var unregister: @Sendable (HTTPServerConnection) -> Void
    }

    private enum Phase {
        /// Reading the next request.
        case waiting
        /// The responder is working on a request; reading is paused.
        case responding
        /// The socket belongs to a WebSocket connection now.
        case upgraded(WebSocketConnection)
        /// A streamed response is being sent; the peer's bytes are read and ignored, so its close is noticed.
        case streaming
        case closed
    }

    private struct State {
        var parser: HTTPRequestParser
        var phase = Phase.waiting
        var idleClock: HTTPIdleClock
        var idleTimer: EventLoopTimer?
    }

    private let channel: SocketChannel
    private let context: Context
    private let state: Mutex<State>

    /// Takes over an accepted descriptor on its loop thread: wraps it (with a TLS server session when configured)
    /// and starts reading.
    static func accept(fd: Int32, loop: EventLoop, tls: TLSServerConfiguration?, context: Context) {
        let session: TLSSession?
        do throws(TLSError) {
            session = try tls.map { configuration throws(TLSError) in try TLSSession(server: configuration) }
        } catch {
            _ = Glibc.close(fd)
            return
        }
        let connection = HTTPServerConnection(channel: SocketChannel(fd: fd, loop: loop, tls: session), context: context)
        context.register(connection)
        connection.channel.start(handler: connection)
        connection.armIdleTimer(after: context.configuration.idleTimeout)
    }

    private init(channel: SocketChannel, context: Context) {
        self.channel = channel
        self.context = context
        self.state = Mutex(State(
            parser: HTTPRequestParser(limits: context.configuration.parserLimits),
            idleClock: HTTPIdleClock(timeout: context.configuration.idleTimeout, now: MonotonicTime.now())))
    }

    /// Bytes written to the connection that the kernel has not taken yet.
    var unsentByteCount: Int { channel.queuedByteCount }

    /// Whether the connection waits for its peer to read before it reads the next request.
    var isWaitingForPeerToRead: Bool { channel.writabilityWaiterCount > 0 }

    /// Received bytes held for requests not parsed yet.
    var bufferedRequestByteCount: Int { state.withLock { $0.parser.bufferedByteCount } }

    /// Server shutdown: WebSocket connections are closed with 1001, others at once.
    func shutdown() async {
        let phase = state.withLock { $0.phase }
        if case .upgraded(let connection) = phase {
            await connection.close(code: .goingAway, reason: "server shutting down")
            await channel.waitUntilClosed()
        } else {
            channel.close()
            await channel.waitUntilClosed()
        }
    }

    // MARK: Reading requests

    private enum Step {
        case wait
        case respond(HTTPRequest)
        case refuse(HTTPParseError)
    }

    func channelRead(_ channel: SocketChannel, _ bytes: UnsafeRawBufferPointer) {
        let (step, webSocket) = state.withLock { state -> (Step, WebSocketConnection?) in
            switch state.phase {
            case .waiting:
                state.idleClock.recordActivity(at: MonotonicTime.now())
                state.parser.append(bytes)
                return (nextStep(&state), nil)
            case .responding:
                // Kept for the next pipelined request, or handed to the WebSocket after an upgrade; reading is
                // paused meanwhile, so at most the rest of one read burst arrives here.
                state.idleClock.recordActivity(at: MonotonicTime.now())
                state.parser.append(bytes)
                return (.wait, nil)
            case .upgraded(let connection):
                return (.wait, connection)
            case .streaming, .closed:
                // No request follows a streamed response or a close: the bytes are only read so that the
                // peer's close is noticed, and buffering them would grow without bound.
                return (.wait, nil)
            }
        }
        // The WebSocket normally receives its bytes as the channel's handler; this keeps them flowing if not.
        if let webSocket {
            webSocket.channelRead(channel, bytes)
            return
        }
        carryOut(step)
    }

    func channelClosed(_ channel: SocketChannel, error: ChannelError?) {
        state.withLock { state in
            state.idleTimer?.cancel()
            state.idleTimer = nil
            if case .upgraded = state.phase { return }
            state.phase = .closed
        }
        context.unregister(self)
    }

    private func nextStep(_ state: inout State) -> Step {
        do throws(HTTPParseError) {
            guard let request = try state.parser.nextRequest() else { return .wait }
            state.phase = .responding
            return .respond(request)
        } catch {
            state.phase = .closed
            return .refuse(error)
        }
    }

    private func carryOut(_ step: Step) {
        switch step {
        case .wait:
            return
        case .respond(let request):
            channel.setReadingPaused(true)
            Task(executorPreference: context.configuration.taskExecutor) { await self.respond(to: request) }
        case .refuse(let error):
            var response = HTTPResponse(status: error.status, text: error.description)
            if case .unsupportedVersion = error { response.version = .http1_1 }
            send(response, keepAlive: false, isHead: false)
        }
    }

    // MARK: Responding

    private func respond(to request: HTTPRequest) async {
        switch await context.responder.respond(to: request) {
        case .response(let response):
            let keepAlive = request.keepAlive && !response.headers.contains(token: "close", inHeader: "Connection")
            let mustWait = send(response, keepAlive: keepAlive, isHead: request.method == .head)
            guard keepAlive else { return }
            // Reading stays paused until the peer has read most of what was sent: a client that pipelines requests
            // without reading them is held back by TCP instead of growing the queue.
            if mustWait {
                let unsent = channel.queuedByteCount
                state.withLock { $0.idleClock.startWaitingForPeer(unsent: unsent, at: MonotonicTime.now()) }
                guard await channel.waitUntilWritable() else { return }
            }
            let step = state.withLock { state -> Step in
                state.idleClock.stopWaitingForPeer(at: MonotonicTime.now())
                guard case .responding = state.phase else { return .wait }
                state.phase = .waiting
                return nextStep(&state)
            }
            if case .wait = step { channel.setReadingPaused(false) }
            carryOut(step)
        case .webSocket(let headers, let handler):
            upgrade(request, extraHeaders: headers, handler: handler)
        case .stream(let head, let body):
            await stream(head, body: body)
        }
    }

    /// Sends `head` with a chunked body that `body` writes, then closes the connection.
    private func stream(_ head: HTTPResponse, body: @Sendable (HTTPResponseStream) async -> Void) async {
        var head = head
        head.body = []
        head.headers.remove(name: "Content-Length")
        head.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        head.headers.replaceOrAdd(name: "Connection", value: "close")
        if let serverName = context.configuration.serverName, !head.headers.contains(name: "Server") {
            head.headers.add(name: "Server", value: serverName)
        }
        let streaming = state.withLock { state -> Bool in
            guard case .responding = state.phase else { return false }
            state.phase = .streaming
            state.idleTimer?.cancel()
            state.idleTimer = nil
            return true
        }
        guard streaming else { return }
        _ = channel.write(head.serialized())
        channel.setReadingPaused(false)
        let stream = HTTPResponseStream(channel: channel)
        await body(stream)
        stream.end()
    }

    /// Writes `response` with the server's headers; closes the connection after it unless `keepAlive`. Returns
    /// whether the unsent bytes are past the channel's high watermark.
    @discardableResult
    private func send(_ response: HTTPResponse, keepAlive: Bool, isHead: Bool) -> Bool {
        var response = response
        if let serverName = context.configuration.serverName, !response.headers.contains(name: "Server") {
            response.headers.add(name: "Server", value: serverName)
        }
        if !keepAlive { response.headers.replaceOrAdd(name: "Connection", value: "close") }
        var bytes = response.serialized()
        if isHead && !response.status.forbidsBody {
            bytes.removeLast(min(bytes.count, response.body.count))
        }
        let outcome = channel.write(bytes)
        if !keepAlive { channel.closeGracefully(drainTimeout: .seconds(2)) }
        guard case .accepted(let mustWait) = outcome else { return false }
        return mustWait
    }

    private func upgrade(
        _ request: HTTPRequest, extraHeaders: HTTPHeaders, handler: @escaping @Sendable (WebSocketConnection) async -> Void
    ) {
        let key: String
        do throws(WebSocketHandshakeError) {
            key = try WebSocketHandshake.validateRequest(
                method: request.method.rawValue, httpVersion: request.version.description, headers: request.headers)
        } catch {
            var response = HTTPResponse(status: HTTPStatus(code: error.httpStatus), text: error.description)
            if error.httpStatus == 426 { response.headers.add(name: "Sec-WebSocket-Version", value: WebSocketHandshake.version) }
            state.withLock { $0.phase = .closed }
            send(response, keepAlive: false, isHead: false)
            return
        }
        var headers = WebSocketHandshake.responseHeaders(forKey: key)
        headers.add(contentsOf: extraHeaders)
        if let serverName = context.configuration.serverName, !headers.contains(name: "Server") {
            headers.add(name: "Server", value: serverName)
        }
        let response = HTTPResponse(status: .switchingProtocols, headers: headers)
        let connection = WebSocketConnection(
            channel: channel, role: .server, limits: context.configuration.webSocketLimits,
            closeTimeout: context.configuration.webSocketCloseTimeout,
            handshakeRequest: request, handshakeResponse: response)
        // On the loop thread, so no read slips between the parser and the WebSocket connection.
        channel.loop.execute { [self] in
            let leftover = state.withLock { state -> [UInt8]? in
                guard case .responding = state.phase else { return nil }
                state.phase = .upgraded(connection)
                state.idleTimer?.cancel()
                state.idleTimer = nil
                return state.parser.takeBufferedBytes()
            }
            guard let leftover else { return }
            _ = channel.write(response.serialized())
            connection.activate(initialBytes: leftover)
            channel.setReadingPaused(false)
            Task(executorPreference: context.configuration.taskExecutor) {
                await handler(connection)
                await connection.close()
            }
        }
    }

    // MARK: Idle timeout

    private func armIdleTimer(after delay: Duration) {
        let timer = channel.loop.scheduleTimer(in: delay) { [weak self] in self?.idleTimerFired() }
        let keep = state.withLock { state -> Bool in
            switch state.phase {
            case .waiting, .responding:
                state.idleTimer = timer
                return true
            case .upgraded, .streaming, .closed:
                return false
            }
        }
        if !keep { timer.cancel() }
    }

    private func idleTimerFired() {
        let unsent = channel.queuedByteCount
        let verdict = state.withLock { state -> HTTPIdleClock.Verdict? in
            state.idleTimer = nil
            switch state.phase {
            case .responding where !state.idleClock.isWaitingForPeer:
                // The responder is at work: that is not the peer's idleness.
                return .checkAgain(after: context.configuration.idleTimeout)
            case .waiting, .responding:
                return state.idleClock.check(unsent: unsent, at: MonotonicTime.now())
            case .upgraded, .streaming, .closed:
                return nil
            }
        }
        switch verdict {
        case .close?: channel.close()
        case .checkAgain(let delay)?: armIdleTimer(after: delay)
        case nil: return
        }
    }
}
