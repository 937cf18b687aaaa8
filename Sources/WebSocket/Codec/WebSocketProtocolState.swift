/// The pure lifecycle of one WebSocket connection after its opening handshake (RFC 6455 §5-§7): bytes and
/// commands go in, `WebSocketAction`s come out, and the I/O layer only carries the actions out.
///
/// It answers every ping with a pong carrying the same payload (also between fragments); with
/// `pendingPongLimit` set (as `WebSocketConnection` sets it), pings beyond that many pongs not reported written yet
/// (`pongWritten()`) are answered once, with the newest payload (RFC 6455 §5.5.3), so a peer flooding pings
/// without reading cannot grow the write queue. It reports pongs,
/// reassembles fragmented messages, validates text as UTF-8 as the bytes arrive (also inside a frame that is
/// still arriving) and enforces `WebSocketLimits`. A protocol violation fails the connection: a close frame with
/// the violation's code (1002, 1007 or 1009) is written, the transport is closed and the connection finishes
/// with the error. A peer's close is echoed (its code, or 1000 when it had none); a server then closes the
/// transport, a client waits for the server to close it, with a timer. After this endpoint sends a close, data
/// frames are ignored until the peer's close arrives.
///
/// Performance: pass a reusable action buffer to `receive(_:into:maxMessages:)`; frames are parsed in place from
/// the receive buffer and a single-frame text message is unmasked straight into its `String`.
public struct WebSocketProtocolState: Sendable {
    /// Which end of the connection this is.
    public let role: WebSocketRole
    /// The limits enforced on received frames and messages.
    public let limits: WebSocketLimits

    private enum Phase: Sendable {
        /// Messages flow both ways.
        case open
        /// This endpoint sent a close frame and waits for the peer's.
        case closeSent
        /// A client whose close handshake is complete waits for the server to close the transport.
        case awaitingTransportClose(WebSocketCloseInfo)
        /// Nothing more will happen.
        case closed(WebSocketCloseInfo)
    }

    private var phase = Phase.open
    private var decoder: WebSocketFrameDecoder
    /// The opcode (text or binary) of the fragmented message in progress, nil between messages.
    private var messageOpcode: WebSocketOpcode?
    /// The payload received so far of the fragmented message in progress.
    private var messageBuffer: [UInt8] = []
    /// Validates the text message in progress across frames.
    private var validator = UTF8Validator()
    /// How many payload bytes of the (incomplete) frame at the decoder's read position were already validated.
    private var validatedPrefix = 0
    private var maskingKeys = MaskingKeySource()
    /// Pongs written that the I/O layer has not reported sent yet (counted only with `pendingPongLimit`).
    private var pendingPongs = 0
    /// How many pongs may wait to be sent before pings are answered only with the newest; nil: no limit, for a
    /// caller that never reports pongs written.
    package var pendingPongLimit: Int?
    /// The limit `WebSocketConnection` sets: enough for a burst of pings read at once (Autobahn's cases send ten),
    /// few enough that a peer that never reads costs little.
    package static let maximumPendingPongs = 16
    /// The newest ping received while a pong was pending: answered once that pong is written.
    private var unansweredPing: [UInt8]?

    /// Creates the state of a connection whose opening handshake just completed.
    public init(role: WebSocketRole, limits: WebSocketLimits = .default) {
        self.role = role
        self.limits = limits
        decoder = WebSocketFrameDecoder(role: role, maxFrameSize: limits.maxFrameSize)
    }

    // MARK: - State

    /// Whether messages can still be sent (no close frame sent or received yet).
    public var isOpen: Bool {
        if case .open = phase { return true }
        return false
    }

    /// How the connection ended, once `.finished` was emitted; nil before.
    public var closeInfo: WebSocketCloseInfo? {
        if case .closed(let info) = phase { return info }
        return nil
    }

    /// Whether a pong was written and waits for `pongWritten()`: the I/O layer then watches for it to be sent.
    var isPongPending: Bool { pendingPongs > 0 }

    /// Received bytes not processed yet (an incomplete frame, or frames left when `maxMessages` was reached).
    public var bufferedByteCount: Int { decoder.bufferedByteCount }

    /// Whether received frames are still being processed.
    private var isReading: Bool {
        switch phase {
        case .open, .closeSent: true
        case .awaitingTransportClose, .closed: false
        }
    }

    // MARK: - Events

    /// Processes bytes read from the transport; returns the actions to carry out.
    public mutating func receive(_ bytes: some Collection<UInt8>) -> [WebSocketAction] {
        var actions: [WebSocketAction] = []
        receive(bytes, into: &actions)
        return actions
    }

    /// Processes bytes read from the transport, appending the actions to carry out to `actions`.
    /// At most `maxMessages` messages are delivered; the frames after them stay buffered until
    /// `processBufferedFrames(into:maxMessages:)` (or the next `receive`) is called, so a consumer can pull
    /// one message at a time and answer it before later frames are looked at.
    public mutating func receive(
        _ bytes: some Collection<UInt8>, into actions: inout [WebSocketAction], maxMessages: Int = .max
    ) {
        let done: Void? = bytes.withContiguousStorageIfAvailable { storage in
            receive(UnsafeRawBufferPointer(storage), into: &actions, maxMessages: maxMessages)
        }
        if done == nil {
            Array(bytes).withUnsafeBytes { receive($0, into: &actions, maxMessages: maxMessages) }
        }
    }

    /// Processes bytes read from the transport, appending the actions to carry out to `actions`; see
    /// `receive(_:into:maxMessages:)`.
    public mutating func receive(
        _ bytes: UnsafeRawBufferPointer, into actions: inout [WebSocketAction], maxMessages: Int = .max
    ) {
        guard isReading else { return }
        decoder.append(bytes)
        processBufferedFrames(into: &actions, maxMessages: maxMessages)
    }

    /// Processes frames already buffered (left over when `maxMessages` was reached), delivering at most
    /// `maxMessages` messages.
    public mutating func processBufferedFrames(into actions: inout [WebSocketAction], maxMessages: Int = .max) {
        var delivered = 0
        while isReading && delivered < maxMessages {
            let header: WebSocketFrameHeader
            do {
                guard let next = try decoder.peekHeader() else { return }
                header = next
            } catch {
                fail(error, into: &actions)
                return
            }
            let open = isOpen
            if open, let violation = sequenceViolation(header) {
                fail(violation, into: &actions)
                return
            }
            let available = decoder.availablePayload(of: header)
            guard available == header.payloadLength else {
                if open && isText(header) && !validateIncompleteFrame(header, available: available) {
                    fail(.invalidUTF8, into: &actions)
                }
                return
            }
            if handleCompleteFrame(header, open: open, into: &actions) {
                delivered += 1
            }
        }
    }

    /// Starts the close handshake: writes a close frame and asks for the close timer. Codes that may not be sent
    /// (`isSendable` false, e.g. 1005) produce a close frame without a code; the reason is cut to fit 123 bytes.
    /// Does nothing once a close frame was sent or received.
    public mutating func close(code: WebSocketCloseCode = .normalClosure, reason: String = "") -> [WebSocketAction] {
        var actions: [WebSocketAction] = []
        close(code: code, reason: reason, into: &actions)
        return actions
    }

    /// Starts the close handshake, appending the actions to `actions`; see `close(code:reason:)`.
    public mutating func close(code: WebSocketCloseCode, reason: String, into actions: inout [WebSocketAction]) {
        guard isOpen else { return }
        actions.append(.write(closeFrame(code: code, reason: reason)))
        actions.append(.startCloseTimer)
        phase = .closeSent
        endMessage()
    }

    /// The close timer fired: closes the transport and finishes (with 1006 if the peer never answered our close).
    public mutating func closeTimedOut() -> [WebSocketAction] {
        switch phase {
        case .closeSent:
            return finish(WebSocketCloseInfo(code: .abnormalClosure, initiator: .local), closingTransport: true)
        case .awaitingTransportClose(let info):
            return finish(info, closingTransport: true)
        case .open, .closed:
            return []
        }
    }

    /// The transport closed (EOF, reset or error): finishes, with 1006 unless a close frame was received.
    public mutating func transportClosed() -> [WebSocketAction] {
        switch phase {
        case .open:
            return finish(WebSocketCloseInfo(code: .abnormalClosure, initiator: .transport), closingTransport: false)
        case .closeSent:
            return finish(WebSocketCloseInfo(code: .abnormalClosure, initiator: .local), closingTransport: false)
        case .awaitingTransportClose(let info):
            return finish(info, closingTransport: false)
        case .closed:
            return []
        }
    }

    /// The pongs written so far have left (the transport's send queue drained): answers the newest ping held back
    /// meanwhile, if any. Harmless when no pong is pending.
    package mutating func pongWritten() -> [WebSocketAction] {
        var actions: [WebSocketAction] = []
        pongWritten(into: &actions)
        return actions
    }

    /// The pongs written so far have left, appending the actions to `actions`; see `pongWritten()`.
    package mutating func pongWritten(into actions: inout [WebSocketAction]) {
        pendingPongs = 0
        guard let payload = unansweredPing else { return }
        unansweredPing = nil
        answerPing(payload, into: &actions)
    }

    // MARK: - Sending

    /// Returns the bytes of `message` as one frame (masked with a fresh random key by a client).
    /// Throws `.closing` once a close frame was sent or received, `.closed` after the connection finished.
    public mutating func send(_ message: WebSocketMessage) throws(WebSocketSendError) -> [UInt8] {
        var bytes: [UInt8] = []
        try send(message, into: &bytes)
        return bytes
    }

    /// Appends the bytes of `message` as one frame to `buffer`; see `send(_:)`.
    public mutating func send(_ message: WebSocketMessage, into buffer: inout [UInt8]) throws(WebSocketSendError) {
        try checkCanSend()
        let key = role == .client ? maskingKeys.next() : nil
        switch message {
        case .text(var text):
            text.withUTF8 { utf8 in
                WebSocketFrameEncoder.encode(opcode: .text, payload: UnsafeRawBufferPointer(utf8), maskingKey: key, into: &buffer)
            }
        case .binary(let bytes):
            bytes.withUnsafeBytes { payload in
                WebSocketFrameEncoder.encode(opcode: .binary, payload: payload, maskingKey: key, into: &buffer)
            }
        }
    }

    /// Returns the bytes of a ping frame; the peer answers with a pong carrying the same payload (≤ 125 bytes).
    public mutating func sendPing(_ payload: [UInt8] = []) throws(WebSocketSendError) -> [UInt8] {
        try controlFrame(.ping, payload)
    }

    /// Returns the bytes of an unsolicited pong frame (a one-way heartbeat); the peer does not answer it.
    public mutating func sendPong(_ payload: [UInt8] = []) throws(WebSocketSendError) -> [UInt8] {
        try controlFrame(.pong, payload)
    }

    private mutating func controlFrame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) throws(WebSocketSendError) -> [UInt8] {
        try checkCanSend()
        guard payload.count <= 125 else { throw .controlPayloadTooLong(payload.count) }
        return frame(opcode, payload)
    }

    private func checkCanSend() throws(WebSocketSendError) {
        switch phase {
        case .open: return
        case .closeSent, .awaitingTransportClose: throw .closing
        case .closed(let info): throw .closed(info)
        }
    }

    // MARK: - Receiving

    /// Checks a data frame's header against the message in progress and the message size limit.
    private func sequenceViolation(_ header: WebSocketFrameHeader) -> WebSocketProtocolError? {
        switch header.opcode {
        case .continuation:
            guard messageOpcode != nil else { return .unexpectedContinuation }
            if header.payloadLength > limits.maxMessageSize - messageBuffer.count {
                return .messageTooLarge(limit: limits.maxMessageSize)
            }
        case .text, .binary:
            if messageOpcode != nil { return .expectedContinuation }
            if header.payloadLength > limits.maxMessageSize { return .messageTooLarge(limit: limits.maxMessageSize) }
        case .close, .ping, .pong:
            break
        }
        return nil
    }

    private func isText(_ header: WebSocketFrameHeader) -> Bool {
        header.opcode == .text || (header.opcode == .continuation && messageOpcode == .text)
    }

    /// Validates the newly arrived payload bytes of an incomplete text frame, so invalid UTF-8 fails the
    /// connection before the rest of the frame arrives.
    private mutating func validateIncompleteFrame(_ header: WebSocketFrameHeader, available: Int) -> Bool {
        guard available > validatedPrefix else { return true }
        if validatedPrefix == 0 && header.opcode == .text { validator.reset() }
        let chunkSize = 4096
        return withUnsafeTemporaryAllocation(byteCount: chunkSize, alignment: 8) { scratch in
            while validatedPrefix < available {
                let count = min(chunkSize, available - validatedPrefix)
                decoder.copyPayload(of: header, from: validatedPrefix, count: count, to: scratch.baseAddress)
                validatedPrefix += count
                guard validator.validate(UnsafeRawBufferPointer(rebasing: scratch[..<count])) else { return false }
            }
            return true
        }
    }

    /// Handles the complete frame at the read position and consumes it; returns whether a message was delivered.
    private mutating func handleCompleteFrame(
        _ header: WebSocketFrameHeader, open: Bool, into actions: inout [WebSocketAction]
    ) -> Bool {
        switch header.opcode {
        case .text, .binary, .continuation:
            guard open else {
                consume(header)  // data after our close frame is ignored
                return false
            }
            if header.fin && header.opcode != .continuation {
                return deliverSingleFrameMessage(header, into: &actions)
            }
            return appendFragment(header, into: &actions)
        case .ping:
            answerPing(controlPayload(header), into: &actions)
            return false
        case .pong:
            actions.append(.pong(controlPayload(header)))
            return false
        case .close:
            receivedClose(controlPayload(header), into: &actions)
            return false
        }
    }

    /// Writes a pong for a ping while open, unless `maximumPendingPongs` are pending: the ping then replaces any
    /// unanswered one.
    private mutating func answerPing(_ payload: [UInt8], into actions: inout [WebSocketAction]) {
        guard isOpen else { return }
        if let limit = pendingPongLimit {
            guard pendingPongs < limit else {
                unansweredPing = payload
                return
            }
            pendingPongs += 1
        }
        actions.append(.write(frame(.pong, payload)))
    }

    /// Delivers an unfragmented message, unmasking it straight into its final storage.
    private mutating func deliverSingleFrameMessage(_ header: WebSocketFrameHeader, into actions: inout [WebSocketAction]) -> Bool {
        let length = header.payloadLength
        if header.opcode == .binary {
            let bytes = [UInt8](unsafeUninitializedCapacity: length) { storage, initialized in
                decoder.copyPayload(of: header, from: 0, count: length, to: storage.baseAddress)
                initialized = length
            }
            consume(header)
            actions.append(.deliver(.binary(bytes)))
            return true
        }
        var valid = true
        let text = String(unsafeUninitializedCapacity: length) { storage in
            decoder.copyPayload(of: header, from: 0, count: length, to: storage.baseAddress)
            if validatedPrefix == 0 { validator.reset() }
            let unvalidated = UnsafeBufferPointer(rebasing: storage[validatedPrefix..<length])
            valid = validator.validate(UnsafeRawBufferPointer(unvalidated)) && validator.isComplete
            return valid ? length : 0
        }
        guard valid else {
            fail(.invalidUTF8, into: &actions)
            return false
        }
        consume(header)
        actions.append(.deliver(.text(text)))
        return true
    }

    /// Adds a fragment to the message in progress and delivers the message at its final fragment.
    private mutating func appendFragment(_ header: WebSocketFrameHeader, into actions: inout [WebSocketAction]) -> Bool {
        if header.opcode != .continuation {
            messageOpcode = header.opcode
            if header.opcode == .text && validatedPrefix == 0 { validator.reset() }
        }
        let start = messageBuffer.count
        let length = header.payloadLength
        messageBuffer.append(contentsOf: repeatElement(0, count: length))
        messageBuffer.withUnsafeMutableBytes { storage in
            decoder.copyPayload(of: header, from: 0, count: length, to: storage.baseAddress.map { $0 + start })
        }
        if messageOpcode == .text {
            let fresh = messageBuffer.withUnsafeBytes { storage in
                validator.validate(UnsafeRawBufferPointer(rebasing: storage[(start + validatedPrefix)...]))
            }
            guard fresh, !header.fin || validator.isComplete else {
                fail(.invalidUTF8, into: &actions)
                return false
            }
        }
        consume(header)
        guard header.fin else { return false }
        let message: WebSocketMessage = if messageOpcode == .text {
            .text(String(decoding: messageBuffer, as: UTF8.self))
        } else {
            .binary(messageBuffer)
        }
        endMessage()
        actions.append(.deliver(message))
        return true
    }

    private mutating func controlPayload(_ header: WebSocketFrameHeader) -> [UInt8] {
        let length = header.payloadLength
        let payload = [UInt8](unsafeUninitializedCapacity: length) { storage, initialized in
            decoder.copyPayload(of: header, from: 0, count: length, to: storage.baseAddress)
            initialized = length
        }
        consume(header)
        return payload
    }

    private mutating func consume(_ header: WebSocketFrameHeader) {
        decoder.consume(header)
        validatedPrefix = 0
    }

    private mutating func endMessage() {
        messageOpcode = nil
        messageBuffer = []
    }

    /// Validates a received close frame and answers it according to the phase and role.
    private mutating func receivedClose(_ payload: [UInt8], into actions: inout [WebSocketAction]) {
        let code: WebSocketCloseCode?
        let reason: String
        switch Self.parseClosePayload(payload) {
        case .success(let parsed): (code, reason) = parsed
        case .failure(let error):
            fail(error, into: &actions)
            return
        }
        let wasOpen = isOpen
        let info = WebSocketCloseInfo(code: code ?? .noStatusReceived, reason: reason, initiator: wasOpen ? .peer : .local)
        endMessage()
        if wasOpen {
            actions.append(.write(closeFrame(code: code ?? .normalClosure, reason: "")))
        }
        switch role {
        case .server:
            actions.append(contentsOf: finish(info, closingTransport: true))
        case .client:
            if wasOpen { actions.append(.startCloseTimer) }
            phase = .awaitingTransportClose(info)
            decoder = WebSocketFrameDecoder(role: role, maxFrameSize: limits.maxFrameSize)
        }
    }

    /// Splits a close payload into code and reason, rejecting a 1-byte payload, unsendable codes and non-UTF-8 reasons.
    static func parseClosePayload(_ payload: [UInt8]) -> Result<(WebSocketCloseCode?, String), WebSocketProtocolError> {
        if payload.isEmpty { return .success((nil, "")) }
        guard payload.count >= 2 else { return .failure(.invalidClosePayload) }
        let code = WebSocketCloseCode(UInt16(payload[0]) << 8 | UInt16(payload[1]))
        guard code.isSendable else { return .failure(.invalidCloseCode(code.rawValue)) }
        let reasonBytes = payload[2...]
        guard UTF8Validator.isValidUTF8(reasonBytes) else { return .failure(.invalidCloseReason) }
        return .success((code, String(decoding: reasonBytes, as: UTF8.self)))
    }

    /// Fails the connection: a close frame with the violation's code (unless one was already sent), then the
    /// transport is closed and the connection finishes with the error.
    private mutating func fail(_ error: WebSocketProtocolError, into actions: inout [WebSocketAction]) {
        let reason = error.description
        if isOpen {
            actions.append(.write(closeFrame(code: error.closeCode, reason: reason)))
        }
        let info = WebSocketCloseInfo(code: error.closeCode, reason: reason, initiator: .local, error: error)
        actions.append(contentsOf: finish(info, closingTransport: true))
    }

    private mutating func finish(_ info: WebSocketCloseInfo, closingTransport: Bool) -> [WebSocketAction] {
        phase = .closed(info)
        endMessage()
        decoder = WebSocketFrameDecoder(role: role, maxFrameSize: limits.maxFrameSize)
        return closingTransport ? [.closeTransport, .finished(info)] : [.finished(info)]
    }

    // MARK: - Frames we write

    private mutating func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        let key = role == .client ? maskingKeys.next() : nil
        payload.withUnsafeBytes { WebSocketFrameEncoder.encode(opcode: opcode, payload: $0, maskingKey: key, into: &bytes) }
        return bytes
    }

    private mutating func closeFrame(code: WebSocketCloseCode, reason: String) -> [UInt8] {
        frame(.close, Self.closePayload(code: code, reason: reason))
    }

    /// The payload of a close frame: the code and the reason cut at a character boundary to fit 125 bytes, or
    /// nothing for a code that may not be sent.
    static func closePayload(code: WebSocketCloseCode, reason: String) -> [UInt8] {
        guard code.isSendable else { return [] }
        var payload: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var room = 123
        for scalar in reason.unicodeScalars {
            let width = UTF8.width(scalar)
            guard width <= room else { break }
            room -= width
            UTF8.encode(scalar) { payload.append($0) }
        }
        return payload
    }
}
