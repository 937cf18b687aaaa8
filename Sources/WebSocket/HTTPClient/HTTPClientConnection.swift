import Synchronization

/// One HTTP/1.1 connection of an `HTTPClient`: carries one request and its response at a time, and is kept for the
/// next request when the response leaves it reusable (HTTP/1.1, no `Connection: close`, framed by length or
/// chunks, nothing after it).
final class HTTPClientConnection: ChannelHandler {
    /// How one exchange ended.
    enum Outcome: Sendable {
        case response(HTTPResponse, reusable: Bool)
        /// `receivedNothing`: no byte of a response arrived, so a reused connection the server closed while idle
        /// can be told from a request the server saw.
        case failure(HTTPClientError, receivedNothing: Bool)
        /// The connection was closed before the request was written: the server cannot have seen it.
        case notSent(HTTPClientError)
    }

    let origin: HTTPOrigin
    private let channel: SocketChannel
    private let limits: HTTPParserLimits
    private let closedWhileIdle: @Sendable (HTTPClientConnection) -> Void
    private let state: Mutex<State>

    private struct Exchange {
        /// Tells this exchange from a later one on the connection, for a timer that fires as it ends.
        var id: UInt64
        var method: HTTPMethod
        var continuation: CheckedContinuation<Outcome, Never>
        var timer: EventLoopTimer?
        var receivedBytes = false
    }

    private struct State {
        var parser: HTTPResponseParser
        var exchange: Exchange?
        var isClosed = false
        /// Why the connection closed before an exchange could start on it (a failed TLS handshake, a cancellation).
        var closeReason: HTTPClientError?
        /// Set while the connection waits in the client's pool; its timer closes it when unused too long.
        var idleTimer: EventLoopTimer?
        /// Counts parks and unparks, so that an idle timer of an earlier park never closes a connection in use.
        var parkGeneration: UInt64 = 0
        var isRetired = false
        /// How many exchanges started on the connection: the id of the latest.
        var exchangeCount: UInt64 = 0
    }

    init(
        origin: HTTPOrigin, channel: SocketChannel, limits: HTTPParserLimits,
        closedWhileIdle: @escaping @Sendable (HTTPClientConnection) -> Void
    ) {
        self.origin = origin
        self.channel = channel
        self.limits = limits
        self.closedWhileIdle = closedWhileIdle
        self.state = Mutex(State(parser: HTTPResponseParser(limits: limits)))
    }

    /// Starts reading (after the TLS handshake begins, for `tls`), on the channel's loop.
    func start(tls: TLSConfiguration?, serverName: String) async throws(HTTPClientError) {
        let channel = channel
        let failure: HTTPClientError? = await withCheckedContinuation { continuation in
            channel.loop.execute { [self] in
                if let tls {
                    do throws(TLSError) {
                        try channel.enableTLS(client: tls, serverName: serverName)
                    } catch {
                        channel.close()
                        continuation.resume(returning: .tls(error))
                        return
                    }
                }
                channel.start(handler: self)
                continuation.resume(returning: nil)
            }
        }
        if let failure { throw failure }
    }

    /// Sends `request` (serialized) and waits for its whole response until `deadline` at the latest, on `clock` (nil:
    /// the monotonic clock), however the server paces its bytes; a timeout or cancellation closes the connection.
    /// A response body over `maxBodyBytes` (nil: the connection's limits) fails it as too large.
    func exchange(
        _ request: [UInt8], method: HTTPMethod, deadline: ContinuousClock.Instant, clock: (any HTTPDeadlineClock)?,
        maxBodyBytes: Int? = nil
    ) async -> Outcome {
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
                let started = state.withLock { state -> Result<UInt64, HTTPClientError> in
                    guard !state.isClosed, !state.isRetired, state.exchange == nil else {
                        return .failure(state.closeReason ?? .connectionClosed(reason: "the connection closed while idle"))
                    }
                    state.exchangeCount &+= 1
                    state.exchange = Exchange(id: state.exchangeCount, method: method, continuation: continuation)
                    state.parser.maxBodyBytes = maxBodyBytes ?? limits.maxBodyBytes
                    return .success(state.exchangeCount)
                }
                let id: UInt64
                switch started {
                case .success(let started): id = started
                case .failure(let refusal):
                    continuation.resume(returning: .notSent(refusal))
                    return
                }
                if case .closed = channel.write(request) {
                    // Not written: answered here unless channelClosed has answered already. The channel may refuse
                    // before channelClosed has run, so its reason comes from the channel itself.
                    let (unsent, reason) = state.withLock { state -> (Exchange?, HTTPClientError?) in
                        defer { state.exchange = nil }
                        return (state.exchange, state.closeReason)
                    }
                    let failure = reason ?? Self.failure(closing: channel.closeError)
                    unsent?.continuation.resume(
                        returning: .notSent(failure ?? .connectionClosed(reason: "the connection closed")))
                    return
                }
                armTimer(until: deadline, on: clock, exchange: id)
            }
        } onCancel: {
            fail(.cancelled)
        }
        return outcome
    }

    /// Arms the timeout of exchange `id`, which fails it however many bytes came meanwhile: on the loop's timers
    /// for the monotonic clock, on `clock` otherwise (never cancelled there: an ended exchange's expiry does nothing).
    private func armTimer(
        until deadline: ContinuousClock.Instant, on clock: (any HTTPDeadlineClock)?, exchange id: UInt64
    ) {
        let expire: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            fail(.timedOut(channel.isTLSHandshakeComplete ? .response : .tlsHandshake), onlyExchange: id)
        }
        if let clock {
            clock.schedule(at: deadline, expire)
            return
        }
        let timer = channel.loop.scheduleTimer(in: max(.zero, ContinuousClock.now.duration(to: deadline)), expire)
        let stillWaiting = state.withLock { state -> Bool in
            guard state.exchange?.id == id else { return false }
            state.exchange?.timer = timer
            return true
        }
        if !stillWaiting { timer.cancel() }
    }

    /// Makes the connection wait in the pool, closed if not taken within `timeout`; false when it cannot be kept
    /// (closed, retired, or an exchange in progress). Call before the pool hands it out.
    func park(timeout: Duration) -> Bool {
        let generation = state.withLock { state -> UInt64? in
            guard !state.isClosed, !state.isRetired, state.exchange == nil else { return nil }
            state.parkGeneration &+= 1
            return state.parkGeneration
        }
        guard let generation else { return false }
        let timer = channel.loop.scheduleTimer(in: timeout) { [weak self] in
            guard let self else { return }
            let retire = state.withLock { state -> Bool in
                guard state.parkGeneration == generation, state.exchange == nil, !state.isClosed else { return false }
                state.idleTimer = nil
                state.isRetired = true
                return true
            }
            if retire { channel.close() }
        }
        let (kept, previous) = state.withLock { state -> (Bool, EventLoopTimer?) in
            guard state.parkGeneration == generation, !state.isClosed, !state.isRetired else { return (false, nil) }
            defer { state.idleTimer = timer }
            return (true, state.idleTimer)
        }
        previous?.cancel()
        if !kept { timer.cancel() }
        return kept
    }

    /// Takes the connection out of the pool for a request; false when it closed or is being closed meanwhile.
    func unpark() -> Bool {
        let (usable, timer) = state.withLock { state -> (Bool, EventLoopTimer?) in
            state.parkGeneration &+= 1
            defer { state.idleTimer = nil }
            return (!state.isClosed && !state.isRetired, state.idleTimer)
        }
        timer?.cancel()
        return usable
    }

    /// Closes the connection; an exchange in progress fails with `connectionClosed`.
    func close() {
        state.withLock { $0.isRetired = true }
        channel.close()
    }

    /// Ends the exchange in progress with `error` and closes the connection (no response can follow on it); with
    /// `onlyExchange`, only while that exchange is the one in progress.
    private func fail(_ error: HTTPClientError, onlyExchange id: UInt64? = nil) {
        let (applies, exchange) = state.withLock { state -> (Bool, Exchange?) in
            if let id, state.exchange?.id != id { return (false, nil) }
            state.isRetired = true
            if state.closeReason == nil { state.closeReason = error }
            defer { state.exchange = nil }
            return (true, state.exchange)
        }
        guard applies else { return }
        channel.close()
        guard let exchange else { return }
        exchange.timer?.cancel()
        exchange.continuation.resume(returning: .failure(error, receivedNothing: !exchange.receivedBytes))
    }

    func channelRead(_ channel: SocketChannel, _ bytes: UnsafeRawBufferPointer) {
        enum Step {
            case wait
            case finished(Exchange, Outcome)
            case unsolicited
        }
        let step = state.withLock { state -> Step in
            guard var exchange = state.exchange else {
                // Bytes with no request outstanding: nothing on this connection can be trusted any more.
                state.isRetired = true
                return .unsolicited
            }
            exchange.receivedBytes = true
            state.exchange = exchange
            state.parser.append(bytes)
            do throws(HTTPParseError) {
                while let response = try state.parser.nextResponse(to: exchange.method) {
                    // An interim response (100 Continue, 103 Early Hints) precedes the real one.
                    if (100..<200).contains(response.status.code) && response.status.code != 101 { continue }
                    let leftover = state.parser.takeBufferedBytes()
                    let reusable = response.version == .http1_1
                        && !response.headers.contains(token: "close", inHeader: "Connection")
                        && response.status.code != 101 && leftover.isEmpty && !state.isRetired
                    state.exchange = nil
                    if !reusable { state.isRetired = true }
                    return .finished(exchange, .response(response, reusable: reusable))
                }
                return .wait
            } catch {
                state.exchange = nil
                state.isRetired = true
                return .finished(exchange, .failure(HTTPClientError(refusing: error), receivedNothing: false))
            }
        }
        switch step {
        case .wait:
            return
        case .unsolicited:
            channel.close()
        case .finished(let exchange, let outcome):
            exchange.timer?.cancel()
            if case .failure = outcome { channel.close() }
            if case .response(_, reusable: false) = outcome { channel.close() }
            exchange.continuation.resume(returning: outcome)
        }
    }

    /// The error a close of the channel with `error` means for a request on it; nil for the server's end of stream.
    private static func failure(closing error: ChannelError?) -> HTTPClientError? {
        switch error {
        case .tls(.unexpectedEOF(duringHandshake: false))?:
            // A server that closes without close_notify (common): the same end of stream as over plain TCP.
            nil
        case .tls(let tlsError)?: .tls(tlsError)
        case .io(let ioError)?: .connectionClosed(reason: ioError.description)
        case nil: nil
        }
    }

    func channelClosed(_ channel: SocketChannel, error: ChannelError?) {
        let (exchange, outcome, idleTimer) = state.withLock { state -> (Exchange?, Outcome?, EventLoopTimer?) in
            state.isClosed = true
            let idleTimer = state.idleTimer
            state.idleTimer = nil
            guard let exchange = state.exchange else {
                if state.closeReason == nil { state.closeReason = Self.failure(closing: error) }
                return (nil, nil, idleTimer)
            }
            state.exchange = nil
            let outcome: Outcome
            switch Self.failure(closing: error) {
            case let failure?:
                outcome = .failure(failure, receivedNothing: !exchange.receivedBytes)
            case nil:
                // A response without Content-Length or chunks ends with the connection.
                do throws(HTTPParseError) {
                    if let response = try state.parser.endOfInput() {
                        outcome = .response(response, reusable: false)
                    } else {
                        outcome = .failure(
                            .connectionClosed(reason: "the server closed the connection"), receivedNothing: !exchange.receivedBytes)
                    }
                } catch {
                    let failure: HTTPClientError = if case .bodyTooLarge = error {
                        HTTPClientError(refusing: error)
                    } else {
                        .connectionClosed(reason: error.description)
                    }
                    outcome = .failure(failure, receivedNothing: false)
                }
            }
            return (exchange, outcome, idleTimer)
        }
        idleTimer?.cancel()
        guard let exchange, let outcome else {
            closedWhileIdle(self)
            return
        }
        exchange.timer?.cancel()
        exchange.continuation.resume(returning: outcome)
    }
}
