import ChatterBots
import Foundation
import Synchronization
import WebSocket

/// One connection of the realtime endpoint: a `RealtimeSession` (the rules) carried out on a
/// `WebSocketConnection` (the I/O).
///
/// Frames leave through one ordered outbox drained by a single writer task, so the hub can hand a socket a frame
/// without waiting for the network and frames keep the order they were handed over in. A close goes through the
/// same outbox (after the frames before it); `abort` bypasses it.
final class RealtimeSocket: Sendable {
    /// Unique within a hub, to find this socket among a device's sockets.
    let id: Int
    let connection: WebSocketConnection
    private let session: Mutex<RealtimeSession>
    private let outbox: AsyncStream<Outbound>.Continuation
    private let outboundFrames: AsyncStream<Outbound>
    private let ownedTasks = OwnedTasks()

    private enum Outbound: Sendable {
        case text(String)
        case close(WebSocketCloseCode, reason: String)
    }

    init(id: Int, connection: WebSocketConnection, session: RealtimeSession) {
        self.id = id
        self.connection = connection
        self.session = Mutex(session)
        (outboundFrames, outbox) = AsyncStream.makeStream(of: Outbound.self)
    }

    /// Whether frames are still served (authenticated, not closing).
    var isOpen: Bool { session.withLock { $0.isOpen } }

    /// When the idle timer must look again; nil once closing.
    var idleDeadline: Date? { session.withLock { $0.idleDeadline } }

    // MARK: Session events

    /// Marks the session authenticated and sends `session.ready`; false when the socket closed meanwhile.
    func announce(userId: User.ID, deviceId: Device.ID, at now: Date) -> Bool {
        session.withLock { session in
            // Authentication only sends `session.ready`: it asks the hub for nothing.
            _ = perform(session.authenticated(userId: userId, deviceId: deviceId, at: now))
            return session.isOpen
        }
    }

    /// A message from the client: answers what the session answers itself, returns the commands to carry out.
    /// `charge` spends the device's budget (see `RealtimeSession.received`).
    func received(
        _ message: WebSocketMessage, at now: Date, charge: () throws(SandboxAuthError) -> Void
    ) -> [(RealtimeCommand, replyTo: String?)] {
        session.withLock { session in
            perform(session.received(message, at: now, charge: charge))
        }
    }

    /// The idle timer woke at `now`.
    func idleTimerFired(at now: Date) {
        session.withLock { session in
            _ = perform(session.idleTimerFired(at: now))
        }
    }

    /// Closes with `code` after the frames already handed over (the first close wins).
    func close(code: WebSocketCloseCode, reason: String) {
        session.withLock { session in
            _ = perform(session.close(code: code, reason: reason))
        }
    }

    /// Drops the connection at once, without a close frame.
    func abort() {
        session.withLock { session in
            session.transportClosed()
        }
        outbox.finish()
        connection.abort()
    }

    /// Hands `texts` (encoded server frames) to the writer, unless the session is closing.
    func send(encoded texts: [String]) {
        session.withLock { session in
            guard session.isOpen else { return }
            for text in texts { outbox.yield(.text(text)) }
        }
    }

    /// Encodes and sends one frame, unless the session is closing.
    func send(_ frame: ServerFrame) {
        guard let text = frame.encodedText else { return }
        send(encoded: [text])
    }

    /// Runs `body` as a task that ends (is cancelled) with the socket, e.g. a delayed ack; it is forgotten as soon
    /// as it finishes.
    func spawn(_ body: @escaping @Sendable () async -> Void) {
        ownedTasks.spawn(body)
    }

    /// The transport is gone: stop serving, let the writer finish, cancel pending tasks.
    func transportClosed() {
        session.withLock { $0.transportClosed() }
        outbox.finish()
        ownedTasks.cancelAll()
    }

    /// Carries out session actions that need no waiting (under the session lock, so frames keep their order);
    /// returns the commands for the hub.
    private func perform(_ actions: [RealtimeSession.Action]) -> [(RealtimeCommand, replyTo: String?)] {
        var commands: [(RealtimeCommand, replyTo: String?)] = []
        for action in actions {
            switch action {
            case .send(let frame):
                if let text = frame.encodedText { outbox.yield(.text(text)) }
            case .close(let code, let reason):
                outbox.yield(.close(code, reason: reason))
                outbox.finish()
            case .perform(let command, let replyTo):
                commands.append((command, replyTo))
            }
        }
        return commands
    }

    // MARK: Writing

    /// Writes the outbox to the connection until it is finished (closed or transport gone).
    func runWriter() async {
        for await item in outboundFrames {
            switch item {
            case .text(let text):
                // A failed send means the connection ended; the reader notices and unregisters the socket.
                try? await connection.send(text: text)
            case .close(let code, let reason):
                await connection.close(code: code, reason: reason)
            }
        }
    }
}

extension ServerFrame {
    /// The frame as the text of a WebSocket text frame (`message.new` and `message.ack` written by hand, the rest
    /// through `Codable`); nil only if a value cannot be encoded as JSON.
    var encodedText: String? {
        if let text = HotFrameEncoder.text(self) { return text }
        guard let data = try? jsonData() else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
