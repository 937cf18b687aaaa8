import WebSocket

/// One open realtime session with the Chatter service (`seeds/realtime-websocket.txt`): connected with the client
/// key and an access token, past `session.ready`.
///
/// Read server events from `events`; send frames with `send(_:)`, or with `request(_:timeout:)` (and its typed
/// forms) to await the reply the server correlates by `id`/`replyTo`. The connection does not reconnect, ping on
/// its own or retry: it is the thin layer a session runtime drives. Once it ends, `events` finishes, every pending
/// request fails with `RealtimeError.closed`, and `closeReason` says why (e.g. `.tokenInvalid` for 4001).
///
/// Replies go to their callers as soon as they are read, so a reply can be seen before events that arrived just
/// before it are taken from `events`; unread events never hold a reply back (see `RealtimeEventStream`). The
/// connection is not closed when the value is dropped: call `close()`.
public final class ChatterRealtimeConnection: Sendable {
    /// The `session.ready` data: the user, the device, the server's clock.
    public let sessionReady: SessionReady
    /// The URL the connection was opened with, the access token replaced by `REDACTED`: safe to log.
    public let redactedURL: String
    /// The events the server sends after `session.ready`, in order; ends when the connection has closed.
    public let events: RealtimeEventStream

    let session: RealtimeSession
    private let requestTimeout: Duration

    /// The seed's heartbeat interval, used when `session.ready` gives none that is usable.
    public static let defaultHeartbeatInterval: Duration = .seconds(25)

    private init(sessionReady: SessionReady, redactedURL: String, session: RealtimeSession, requestTimeout: Duration) {
        self.sessionReady = sessionReady
        self.redactedURL = redactedURL
        self.session = session
        self.events = RealtimeEventStream(buffer: session.events)
        self.requestTimeout = requestTimeout
    }

    /// Opens the WebSocket at `configuration.webSocketURL?clientKey=…&token=…` and waits for `session.ready`.
    ///
    /// Frames that arrive before `session.ready` (other than it) are kept as the first events.
    /// - Throws: `.invalidURL`, `.connectionFailed` (the WebSocket could not be opened), `.closed` (e.g.
    ///   `.tokenInvalid`: the server closed before `session.ready`), `.sessionReadyTimedOut`, `.invalidSessionReady`
    ///   or `.cancelled`. The socket is closed whenever this throws.
    public static func connect(
        configuration: ChatterServerConfiguration, accessToken: String, options: RealtimeConnectionOptions = .init()
    ) async throws(RealtimeError) -> ChatterRealtimeConnection {
        try await connect(
            configuration: configuration, accessToken: accessToken, options: options,
            sessionReadyTimeout: options.sessionReadyTimeout, opened: {})
    }

    /// Opens the WebSocket, calls `opened` once its handshake completed, and waits for `session.ready` for as long
    /// as the calling task runs: for a session runtime whose lifecycle owns the ready timeout and ends the wait by
    /// cancelling the task (`options.sessionReadyTimeout` is not used). Throws as `connect(configuration:…)` does.
    package static func connect(
        configuration: ChatterServerConfiguration, accessToken: String, options: RealtimeConnectionOptions,
        opened: @Sendable () -> Void
    ) async throws(RealtimeError) -> ChatterRealtimeConnection {
        try await connect(
            configuration: configuration, accessToken: accessToken, options: options, sessionReadyTimeout: nil,
            opened: opened)
    }

    /// Opens the WebSocket and waits for `session.ready`, within `sessionReadyTimeout` unless it is nil.
    private static func connect(
        configuration: ChatterServerConfiguration, accessToken: String, options: RealtimeConnectionOptions,
        sessionReadyTimeout: Duration?, opened: @Sendable () -> Void
    ) async throws(RealtimeError) -> ChatterRealtimeConnection {
        let redactedURL =
            configuration.webSocketURL(accessToken: "REDACTED")?.absoluteString ?? configuration.webSocketURL.absoluteString
        guard let url = configuration.webSocketURL(accessToken: accessToken) else { throw .invalidURL(redactedURL) }
        let webSocket: WebSocketConnection
        do throws(WebSocketError) {
            webSocket = try await WebSocketClient.connect(to: url, configuration: options.webSocket)
        } catch {
            switch error {
            case .invalidURL: throw .invalidURL(redactedURL)  // its text would carry the token
            case .cancelled: throw .cancelled
            default: throw .connectionFailed(error)
            }
        }

        let session = RealtimeSession(
            webSocket: webSocket, clock: options.clock, eventBufferLimit: options.eventBufferLimit,
            eventBufferHardLimit: options.eventBufferHardLimit, taskExecutor: options.taskExecutor)
        session.start(sessionReadyTimeout: sessionReadyTimeout)
        opened()
        let failure: RealtimeError
        switch await session.sessionReady() {
        case .success(let frame):
            if case .sessionReady(let ready) = frame.event {
                return ChatterRealtimeConnection(
                    sessionReady: ready, redactedURL: redactedURL, session: session, requestTimeout: options.requestTimeout)
            }
            failure = .unexpectedReply(requestType: "connect", replyType: frame.event.type)
        case .failure(let error):
            failure = error
        }
        if failure.closeReason == nil {
            await webSocket.close(code: .normalClosure, reason: "no usable session.ready")
        }
        throw failure
    }

    /// How often to send `ping`: `session.ready`'s `heartbeatIntervalMs`, or 25 s when that is not positive.
    public var heartbeatInterval: Duration {
        sessionReady.heartbeatIntervalMs > 0 ? sessionReady.heartbeatInterval : Self.defaultHeartbeatInterval
    }

    /// Whether frames can still be sent (no close started or received).
    public var isOpen: Bool { session.webSocket.isOpen }

    // MARK: Sending

    /// Sends a frame without an `id`, for the requests the server does not answer (receipts, typing).
    /// - Throws: `.closed` once the connection is closing or closed, `.unencodableRequest`.
    public func send(_ request: ClientRequest) async throws(RealtimeError) {
        let text = try Self.encode(ClientFrame(request), type: request.type)
        do throws(WebSocketError) {
            try await session.webSocket.send(.text(text))
        } catch {
            throw await closedError(error)
        }
    }

    /// Sends `request` from synchronous code without waiting for room in the socket's queue: for receipts, small and
    /// at most one per conversation at a time. - Throws: `.connectionFailed` once the connection is closing or
    /// closed, `.unencodableRequest`.
    package func sendWithoutWaiting(_ request: ClientRequest) throws(RealtimeError) {
        let text = try Self.encode(ClientFrame(request), type: request.type)
        do throws(WebSocketError) {
            try session.webSocket.sendWithoutWaiting(.text(text))
        } catch {
            throw .connectionFailed(error)
        }
    }

    /// Sends `ping` from synchronous code, with a fresh `id` but no request waiting for its `pong`: for a heartbeat
    /// that hears pongs through `observePongs(_:)` and keeps its own deadline. No task, no timeout.
    /// - Throws: `.connectionFailed` once the connection is closing or closed.
    package func sendPingWithoutWaiting() throws(RealtimeError) {
        let text = try Self.encode(ClientFrame(.ping, id: RequestID.text(session.makeRequestID())), type: ClientRequest.ping.type)
        do throws(WebSocketError) {
            try session.webSocket.sendWithoutWaiting(.text(text))
        } catch {
            throw .connectionFailed(error)
        }
    }

    /// Calls `observer` on the connection's reader for every `pong` that arrives from now on (one observer: a later
    /// call replaces it). A pong that answers no request of `request(_:timeout:)` then stops there instead of
    /// reaching `events`.
    package func observePongs(_ observer: @escaping @Sendable () -> Void) {
        session.observePongs(observer)
    }

    /// From now on, a `message.ack` that answers `sendMessage(_:timeout:)` also reaches `events`, in the order it was
    /// read: for a display that must show a sent message before the answers read after its ack, which the task
    /// awaiting the ack may only see later.
    package func keepAcknowledgementsInEvents() {
        session.keepAcknowledgementsInEvents()
    }

    /// Sends `request` with the caller's own `id` and returns once the frame is written, without waiting for a
    /// reply: the reply (e.g. `message.ack`, or an `error`) arrives in `events` with `replyTo` set to `id`.
    ///
    /// For callers that correlate replies themselves, such as an outbox keeping thousands of sends in flight: no
    /// waiter or timeout per frame. Use an `id` that does not start with `c-` (those are this connection's own).
    /// - Throws: `.closed` once the connection is closing or closed, `.unencodableRequest`.
    public func send(_ request: ClientRequest, id: String) async throws(RealtimeError) {
        let text = try Self.encode(ClientFrame(request, id: id), type: request.type)
        do throws(WebSocketError) {
            try await session.webSocket.send(.text(text))
        } catch {
            throw await closedError(error)
        }
    }

    /// Sends a `message.send` frame whose `data` object the caller already holds as JSON text (an outbox stores
    /// each payload once, encoded; re-encoding it for every send and resend would cost more than the rest of the
    /// send), with the caller's `id`. The reply arrives in `events` as for `send(_:id:)`. `encodedData` must be a
    /// `MessageSend` JSON object; the server answers anything else with `VALIDATION_FAILED`.
    /// - Throws: `.closed` once the connection is closing or closed.
    public func sendMessage(encodedData: String, id: String) async throws(RealtimeError) {
        do throws(WebSocketError) {
            try await session.webSocket.send(.text(Self.messageSendText(encodedData: encodedData, id: id)))
        } catch {
            throw await closedError(error)
        }
    }

    /// Sends several `message.send` frames as ``sendMessage(encodedData:id:)`` does, in order, with one write to the
    /// socket: an outbox holding many replies at once pays one system call for all of them.
    /// - Throws: `.closed` once the connection is closing or closed (then none of them was written).
    public func sendMessages(_ sends: [(encodedData: String, id: String)]) async throws(RealtimeError) {
        do throws(WebSocketError) {
            try await session.webSocket.send(Self.messageSendFrames(sends))
        } catch {
            throw await closedError(error)
        }
    }

    /// Whether ``sendMessagesWithoutWaiting(_:)`` may be called now: on the connection's event loop, with room in the
    /// socket's queue (so the frames leave at the end of the loop's turn and nothing grows without bound).
    package var acceptsMessagesWithoutWaiting: Bool { session.webSocket.acceptsFramesOnLoop }

    /// Sends `message.send` frames as ``sendMessages(_:)`` does, from synchronous code and without waiting for room
    /// in the socket's queue: for an outbox whose loop is idle, a few replies that just committed, where
    /// ``acceptsMessagesWithoutWaiting`` holds.
    /// - Throws: `.connectionFailed` once the connection is closing or closed (then none of them was written).
    package func sendMessagesWithoutWaiting(_ sends: [(encodedData: String, id: String)]) throws(RealtimeError) {
        do throws(WebSocketError) {
            try session.webSocket.sendWithoutWaiting(Self.messageSendFrames(sends))
        } catch {
            throw .connectionFailed(error)
        }
    }

    private static func messageSendFrames(_ sends: [(encodedData: String, id: String)]) -> [WebSocketMessage] {
        sends.map { WebSocketMessage.text(messageSendText(encodedData: $0.encodedData, id: $0.id)) }
    }

    private static func messageSendText(encodedData: String, id: String) -> String {
        var text = "{\"id\":"
        if id.utf8.allSatisfy({ $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 >= 0x20 }) {
            text += "\"" + id + "\""
        } else {
            text += String(decoding: (try? WireCoding.encoder.encode(id)) ?? Data("\"\"".utf8), as: UTF8.self)
        }
        text += ",\"type\":\"message.send\",\"data\":" + encodedData + "}"
        return text
    }

    /// Sends `request` with a fresh `id` and returns the event of the frame whose `replyTo` carries that id
    /// (`message.ack`, `sync.response`, `pong`), within `timeout` (default: `RealtimeConnectionOptions.requestTimeout`).
    ///
    /// - Throws: `.api` for an `error` reply (its code says what to do), `.replyTimedOut` (a late reply then arrives
    ///   in `events`), `.closed` when the connection ends first, `.noReplyExpected` for receipts and typing,
    ///   `.unencodableRequest`, `.cancelled`.
    public func request(_ request: ClientRequest, timeout: Duration? = nil) async throws(RealtimeError) -> ServerEvent {
        if !request.expectsReply {
            guard case .unknown = request else { throw .noReplyExpected(requestType: request.type) }
        }
        // A request whose caller is gone must not reach the server (a message.send would create the message).
        if Task.isCancelled { throw .cancelled }
        let session = session
        let id = session.makeRequestID()
        let text = try Self.encode(ClientFrame(request, id: RequestID.text(id)), type: request.type)
        try session.register(id: id, type: request.type, timeout: timeout ?? requestTimeout)
        let reply = await withTaskCancellationHandler {
            // A cancellation that landed after the check above has settled the request by now: it is not sent.
            await session.sendRequest(id: id, text: text)
            return await session.reply(to: id)
        } onCancel: {
            session.settle(id, with: .failure(.cancelled))
        }
        switch reply {
        case .success(let frame):
            if case .error(let body) = frame.event { throw .api(ChatterAPIError(body)) }
            return frame.event
        case .failure(let error):
            throw error
        }
    }

    /// Sends `message.send` and returns its `message.ack`. Resending the same `clientMessageId` returns the same ack.
    /// - Throws: as `request(_:timeout:)`; `.api` with e.g. `NOT_FRIENDS` or `NOT_FOUND` when the server refuses it.
    public func sendMessage(_ message: MessageSend, timeout: Duration? = nil) async throws(RealtimeError) -> MessageAck {
        let reply = try await request(.sendMessage(message), timeout: timeout)
        guard case .messageAck(let ack) = reply else {
            throw .unexpectedReply(requestType: "message.send", replyType: reply.type)
        }
        return ack
    }

    /// Sends `sync.request` and returns its `sync.response`.
    /// - Throws: as `request(_:timeout:)`.
    public func sync(_ request: SyncRequest, timeout: Duration? = nil) async throws(RealtimeError) -> SyncResponse {
        let reply = try await self.request(.syncRequest(request), timeout: timeout)
        guard case .syncResponse(let response) = reply else {
            throw .unexpectedReply(requestType: "sync.request", replyType: reply.type)
        }
        return response
    }

    /// Sends `ping` and returns when its `pong` arrives: the heartbeat. A `.replyTimedOut` means the connection is dead.
    /// - Throws: as `request(_:timeout:)`.
    public func ping(timeout: Duration? = nil) async throws(RealtimeError) {
        let reply = try await request(.ping, timeout: timeout)
        guard case .pong = reply else { throw .unexpectedReply(requestType: "ping", replyType: reply.type) }
    }

    // MARK: Closing

    /// Closes the connection with 1000 (pending requests fail with `.closed(.normal)`) and returns how it ended
    /// (another reason when the server closed first).
    @discardableResult
    public func close() async -> RealtimeCloseReason {
        await session.webSocket.close(code: .normalClosure, reason: "")
        return await session.closeReason
    }

    /// Drops the connection at once, without a close handshake: for a peer that stopped answering (no pong), where
    /// waiting for its close frame would only delay the reconnect. `events` ends and `closeReason` becomes 1006.
    public func abort() {
        session.webSocket.abort()
    }

    /// Hands every event to `sink` on the connection's reader task instead of `events`: first the events buffered so
    /// far, in order, then each batch as it is read. For a consumer whose handling never waits, which saves a
    /// hand-over between tasks per frame. Call once; `events` then only ends. Returns once the connection has ended
    /// and every event was handed over, or when the calling task is cancelled (the sink may then still get events).
    package func deliverEvents(to sink: any RealtimeEventSink) async {
        session.events.deliver(to: sink)
        await session.waitUntilClosed()
    }

    /// How the connection ended; suspends until it has.
    public var closeReason: RealtimeCloseReason {
        get async { await session.closeReason }
    }

    /// The number of requests awaiting a reply.
    var pendingRequestCount: Int { session.pendingCount }

    // MARK: Encoding

    private static func encode(_ frame: ClientFrame, type: String) throws(RealtimeError) -> String {
        if let text = HotFrameEncoder.text(frame) { return text }
        do {
            return String(decoding: try frame.jsonData(), as: UTF8.self)
        } catch {
            throw .unencodableRequest(requestType: type, description: String(describing: error))
        }
    }

    /// The error for a send refused because the connection is closing or closed: `.closed` with the reason.
    private func closedError(_ error: WebSocketError) async -> RealtimeError {
        switch error {
        case .closing, .connectionClosed: .closed(await session.closeReason)
        default: .connectionFailed(error)
        }
    }
}
