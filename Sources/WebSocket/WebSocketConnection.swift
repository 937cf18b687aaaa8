import Synchronization

/// An open WebSocket connection, client or server side: receive with `messages`, send with `send`, end with `close`.
///
/// The RFC 6455 rules live in `WebSocketProtocolState`; this type carries out its actions on a socket owned by an
/// event loop. Reads happen on the loop thread; `send` writes straight to the socket when nothing is queued and
/// suspends only when more than the channel's high watermark waits to be written. Pings are answered
/// automatically (while 16 pongs wait to be sent, only the newest ping is answered after them). A peer that vanishes
/// without a close frame is reported as 1006 once the socket reports the end of stream or a reset; `close` returns
/// within the configured close timeout even if the peer never answers.
/// The open socket keeps the connection alive: end it with `close` (or let the peer close it), not by dropping it.
public final class WebSocketConnection: Sendable {
    /// Whether this end is the client or the server.
    public let role: WebSocketRole
    /// The peer's address, when the socket could report it.
    public let remoteAddress: SocketAddress?
    /// The opening handshake's request: sent by a client, received by a server (path, query, headers).
    public let handshakeRequest: HTTPRequest
    /// The opening handshake's 101 response: received by a client, sent by a server.
    public let handshakeResponse: HTTPResponse
    /// The messages received, in order; the sequence ends when the connection closes.
    public let messages: WebSocketInboundStream

    let channel: SocketChannel
    let inbound: InboundMessageBuffer
    private let closeTimeout: Duration
    private let state: Mutex<State>

    private struct State {
        var protocolState: WebSocketProtocolState
        var closeTimer: EventLoopTimer?
        var closeInfo: WebSocketCloseInfo?
        var closeWaiters: [CheckedContinuation<WebSocketCloseInfo, Never>] = []
        var pongHandler: (@Sendable ([UInt8]) -> Void)?
        /// Reused across reads so decoding allocates no action array per read.
        var actions: [WebSocketAction] = []
    }

    /// What to do once the lock is released: send the frames written, hand messages and pongs to the application,
    /// wake waiters.
    private struct Effects {
        var pendingWrite: SocketChannel.PendingWrite?
        /// A pong was written whose sending the protocol state must hear of (`pongWritten`).
        var watchesPong = false
        var messages: [WebSocketMessage] = []
        var pongs: [[UInt8]] = []
        var pongHandler: (@Sendable ([UInt8]) -> Void)?
        var finished: WebSocketCloseInfo?
        var closeWaiters: [CheckedContinuation<WebSocketCloseInfo, Never>] = []
    }

    init(
        channel: SocketChannel, role: WebSocketRole, limits: WebSocketLimits, closeTimeout: Duration,
        handshakeRequest: HTTPRequest, handshakeResponse: HTTPResponse
    ) {
        self.channel = channel
        self.role = role
        self.remoteAddress = channel.remoteAddress
        self.handshakeRequest = handshakeRequest
        self.handshakeResponse = handshakeResponse
        self.closeTimeout = closeTimeout
        let inbound = InboundMessageBuffer { [weak channel] decision in channel?.setReadingPaused(decision) }
        self.inbound = inbound
        self.messages = WebSocketInboundStream(buffer: inbound)
        var protocolState = WebSocketProtocolState(role: role, limits: limits)
        protocolState.pendingPongLimit = WebSocketProtocolState.maximumPendingPongs
        self.state = Mutex(State(protocolState: protocolState))
    }

    /// Takes over the channel's reads, starting with `bytes` already received after the handshake; call on the loop thread.
    func activate(initialBytes: [UInt8]) {
        channel.setHandler(self)
        if !initialBytes.isEmpty {
            initialBytes.withUnsafeBytes { channelRead(channel, $0) }
        }
    }

    // MARK: Sending

    /// Sends a text or binary message as one frame.
    /// - Throws: `WebSocketError.closing` once a close started, `.connectionClosed` after the connection ended.
    public func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        try await sendFrames { protocolState throws(WebSocketSendError) in try protocolState.send(message) }
    }

    /// Sends `messages` in order, each as one frame, with a single write to the socket: for a caller holding several
    /// messages at once, one system call and TCP segment instead of one each. Either every frame is accepted or,
    /// when it throws, none is.
    /// - Throws: `WebSocketError.closing` once a close started, `.connectionClosed` after the connection ended.
    public func send(_ messages: [WebSocketMessage]) async throws(WebSocketError) {
        guard !messages.isEmpty else { return }
        try await sendFrames { protocolState throws(WebSocketSendError) in try Self.frames(of: messages, &protocolState) }
    }

    /// Sends a text message.
    public func send(text: String) async throws(WebSocketError) {
        try await send(.text(text))
    }

    /// Sends a binary message.
    public func send(binary: [UInt8]) async throws(WebSocketError) {
        try await send(.binary(binary))
    }

    /// Sends a ping; the peer's pong reaches the `onPong` handler.
    /// - Throws: `.controlPayloadTooLong` beyond 125 bytes, `.closing` or `.connectionClosed` after a close.
    public func ping(_ payload: [UInt8] = []) async throws(WebSocketError) {
        try await sendFrames { protocolState throws(WebSocketSendError) in try protocolState.sendPing(payload) }
    }

    /// Sets the closure called (on the event loop; keep it short) with the payload of every pong received, for
    /// heartbeats. Replaces any previous handler.
    public func onPong(_ handler: @escaping @Sendable ([UInt8]) -> Void) {
        state.withLock { $0.pongHandler = handler }
    }

    /// Sends `message` without waiting for room in the socket's queue, from synchronous code: for small frames that
    /// need no backpressure (a receipt, at most one per conversation at a time). Throws as ``send(_:)-(WebSocketMessage)``.
    package func sendWithoutWaiting(_ message: WebSocketMessage) throws(WebSocketError) {
        let (_, pending) = try enqueueFrames { protocolState throws(WebSocketSendError) in try protocolState.send(message) }
        if let pending { _ = channel.flush(pending) }
    }

    /// Whether frames given now from this thread leave at the end of the event loop's turn, writing nothing on this
    /// thread, and the socket's queue has room for them: on the connection's event loop, below its high watermark.
    package var acceptsFramesOnLoop: Bool {
        channel.loop.inEventLoop && channel.queuedByteCount <= channel.highWatermark
    }

    /// Sends `messages` in order as ``send(_:)-([WebSocketMessage])`` does, without waiting for room in the socket's
    /// queue: for a few frames from synchronous code, where ``acceptsFramesOnLoop`` holds. Throws as that method
    /// does, and then sends none of them.
    package func sendWithoutWaiting(_ messages: [WebSocketMessage]) throws(WebSocketError) {
        guard !messages.isEmpty else { return }
        let (_, pending) = try enqueueFrames { protocolState throws(WebSocketSendError) in try Self.frames(of: messages, &protocolState) }
        if let pending { _ = channel.flush(pending) }
    }

    /// `messages` encoded in order, one frame each, in one buffer.
    private static func frames(
        of messages: [WebSocketMessage], _ protocolState: inout WebSocketProtocolState
    ) throws(WebSocketSendError) -> [UInt8] {
        var bytes: [UInt8] = []
        for message in messages { try protocolState.send(message, into: &bytes) }
        return bytes
    }

    /// Encodes frames with the protocol state and hands them to the channel under the lock, so frames keep their
    /// order; sends them (if this call became the channel's writer) after it, then waits while the queue is full.
    private func sendFrames(
        _ encode: (inout WebSocketProtocolState) throws(WebSocketSendError) -> [UInt8]
    ) async throws(WebSocketError) {
        let (mustWait, pending) = try enqueueFrames(encode)
        let waits = pending.map { channel.flush($0) } ?? mustWait
        if waits { _ = await channel.waitUntilWritable() }
    }

    /// Encodes frames and hands them to the channel under the lock; returns whether the queue is full and, when this
    /// call became the channel's writer, what it must flush.
    private func enqueueFrames(
        _ encode: (inout WebSocketProtocolState) throws(WebSocketSendError) -> [UInt8]
    ) throws(WebSocketError) -> (mustWait: Bool, pending: SocketChannel.PendingWrite?) {
        try state.withLock { state throws(WebSocketError) -> (Bool, SocketChannel.PendingWrite?) in
            let bytes: [UInt8]
            do throws(WebSocketSendError) {
                bytes = try encode(&state.protocolState)
            } catch {
                throw WebSocketError(error)
            }
            switch channel.enqueue(bytes) {
            case (.accepted(let mustWait), let pending):
                return (mustWait, pending)
            case (.closed, _):
                throw .connectionClosed(state.closeInfo ?? WebSocketCloseInfo(code: .abnormalClosure, initiator: .transport))
            }
        }
    }

    // MARK: Closing

    /// Starts the close handshake (if not started) and returns how the connection ended, within the close timeout.
    @discardableResult
    public func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") async -> WebSocketCloseInfo {
        let effects = state.withLock { state -> Effects in
            var actions: [WebSocketAction] = []
            state.protocolState.close(code: code, reason: reason, into: &actions)
            return perform(actions, &state)
        }
        deliver(effects)
        return await closeInfo
    }

    /// How the connection ended; suspends until it has.
    public var closeInfo: WebSocketCloseInfo {
        get async {
            await withCheckedContinuation { continuation in
                let info = state.withLock { state -> WebSocketCloseInfo? in
                    if let info = state.closeInfo { return info }
                    state.closeWaiters.append(continuation)
                    return nil
                }
                if let info { continuation.resume(returning: info) }
            }
        }
    }

    /// Whether no close frame was sent or received yet.
    public var isOpen: Bool { state.withLock { $0.protocolState.isOpen } }

    private func pongWritten() {
        let effects = state.withLock { state -> Effects in
            var actions: [WebSocketAction] = []
            state.protocolState.pongWritten(into: &actions)
            var effects = perform(actions, &state)
            effects.watchesPong = state.protocolState.isPongPending
            return effects
        }
        deliver(effects)
    }

    private func closeTimerFired() {
        let effects = state.withLock { state -> Effects in
            state.closeTimer = nil
            return perform(state.protocolState.closeTimedOut(), &state)
        }
        deliver(effects)
    }

    // MARK: Carrying out actions

    /// Carries out the state machine's actions in order; frames are accepted under the lock, so they keep their
    /// order, and sent by `deliver` after it.
    private func perform(_ actions: [WebSocketAction], _ state: inout State) -> Effects {
        var effects = Effects()
        for action in actions {
            switch action {
            case .write(let bytes):
                if case (_, let pending?) = channel.enqueue(bytes) { effects.pendingWrite = pending }
            case .deliver(let message):
                effects.messages.append(message)
            case .pong(let payload):
                effects.pongs.append(payload)
                effects.pongHandler = state.pongHandler
            case .startCloseTimer:
                state.closeTimer?.cancel()
                state.closeTimer = channel.loop.scheduleTimer(in: closeTimeout) { [weak self] in self?.closeTimerFired() }
            case .closeTransport:
                channel.closeGracefully(drainTimeout: closeTimeout)
            case .finished(let info):
                state.closeTimer?.cancel()
                state.closeTimer = nil
                state.closeInfo = info
                effects.finished = info
                swap(&effects.closeWaiters, &state.closeWaiters)
            }
        }
        return effects
    }

    private func deliver(_ effects: Effects) {
        if let pending = effects.pendingWrite { _ = channel.flush(pending) }
        // The pongs count as sent once the queue drains to the low watermark: until then pings beyond
        // `maximumPendingPongs` only replace the one to answer next, so a peer that pings without reading adds at
        // most that many pongs past that mark.
        if effects.watchesPong {
            channel.whenWritable { [weak self] open in if open { self?.pongWritten() } }
        }
        inbound.push(effects.messages)
        if let handler = effects.pongHandler {
            for payload in effects.pongs { handler(payload) }
        }
        if let info = effects.finished {
            inbound.finish()
            for waiter in effects.closeWaiters { waiter.resume(returning: info) }
        }
    }
}

extension WebSocketConnection: ChannelHandler {
    func channelRead(_ channel: SocketChannel, _ bytes: UnsafeRawBufferPointer) {
        let effects = state.withLock { state -> Effects in
            var actions: [WebSocketAction] = []
            swap(&actions, &state.actions)
            let pongWasPending = state.protocolState.isPongPending
            state.protocolState.receive(bytes, into: &actions)
            var effects = perform(actions, &state)
            effects.watchesPong = !pongWasPending && state.protocolState.isPongPending
            actions.removeAll(keepingCapacity: true)
            swap(&actions, &state.actions)
            return effects
        }
        deliver(effects)
    }

    func channelClosed(_ channel: SocketChannel, error: ChannelError?) {
        let effects = state.withLock { state -> Effects in
            perform(state.protocolState.transportClosed(), &state)
        }
        deliver(effects)
    }
}
