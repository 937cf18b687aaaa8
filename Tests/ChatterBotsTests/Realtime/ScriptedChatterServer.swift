import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ChatterBots
@testable import WebSocket

/// Our `HTTPServer` on loopback playing the Chatter realtime server from a per-test script: it accepts the upgrade,
/// then the script sends frames, reads the client's frames and closes (or vanishes) as the test needs, and returns
/// what it observed (`Outcome`) for the test to check.
///
/// Each accepted connection runs the script once; when the script returns, the server closes the socket with 1000
/// if it is still open, so scripts that must keep it open end with `waitForClose()`.
final class ScriptedChatterServer<Outcome: Sendable>: Sendable {
    let server: HTTPServer
    let configuration: ChatterServerConfiguration
    private let outcomes: AsyncStream<Result<Outcome, any Error>>
    private let checkpoints: AsyncStream<String>
    private let handshakes: HandshakeLog

    private init(
        server: HTTPServer, outcomes: AsyncStream<Result<Outcome, any Error>>, checkpoints: AsyncStream<String>,
        handshakes: HandshakeLog
    ) {
        self.server = server
        self.outcomes = outcomes
        self.checkpoints = checkpoints
        self.handshakes = handshakes
        let base = "127.0.0.1:\(server.port)/v1"
        configuration = ChatterServerConfiguration(
            apiBaseURL: URL(string: "http://\(base)")!, webSocketURL: URL(string: "ws://\(base)/ws")!,
            clientKey: ScriptedPeer.clientKey)
    }

    /// Starts a server whose every WebSocket connection plays `script`.
    static func start(
        _ script: @escaping @Sendable (ScriptedPeer) async throws -> Outcome
    ) async throws -> ScriptedChatterServer<Outcome> {
        let (outcomes, outcomeSink) = AsyncStream<Result<Outcome, any Error>>.makeStream()
        let (checkpoints, checkpointSink) = AsyncStream<String>.makeStream()
        let handshakes = HandshakeLog()
        let server = try await HTTPServer.start { request in
            guard request.isWebSocketUpgrade, request.path == "/v1/ws" else {
                return .response(HTTPResponse(status: .notFound, text: "not found"))
            }
            handshakes.requests.withLock { $0.append(request) }
            return .webSocket { connection in
                let peer = ScriptedPeer(connection: connection, request: request, checkpoints: checkpointSink)
                do {
                    outcomeSink.yield(.success(try await script(peer)))
                } catch {
                    outcomeSink.yield(.failure(error))
                }
            }
        }
        return ScriptedChatterServer(server: server, outcomes: outcomes, checkpoints: checkpoints, handshakes: handshakes)
    }

    /// Connects a realtime client to this server. The WebSocket's connect and handshake timeouts are hang guards
    /// whatever `options` say: no test here is about them, and a stalled machine must not run them out.
    func connect(
        token: String = "token-of-ana", options: RealtimeConnectionOptions = .patient
    ) async throws(RealtimeError) -> ChatterRealtimeConnection {
        var options = options
        options.webSocket.connectTimeout = .hangGuard
        options.webSocket.handshakeTimeout = .hangGuard
        return try await ChatterRealtimeConnection.connect(configuration: configuration, accessToken: token, options: options)
    }

    /// Connects and returns the error, for tests of failed connects.
    func connectionError(options: RealtimeConnectionOptions = .patient) async -> RealtimeError? {
        do {
            let connection = try await connect(options: options)
            await connection.close()
            return nil
        } catch {
            return error
        }
    }

    /// The upgrade requests received so far.
    var handshakeRequests: [HTTPRequest] { handshakes.requests.withLock { $0 } }

    /// Waits until the script of the next connection has finished; returns its outcome or rethrows its error.
    func scriptOutcome() async throws -> Outcome {
        var iterator = outcomes.makeAsyncIterator()
        guard let outcome = await iterator.next() else { throw ScriptedPeer.ScriptError.serverStopped }
        return try outcome.get()
    }

    /// Waits until the script reaches its next `checkpoint(_:)`; returns the checkpoint's name.
    @discardableResult
    func checkpoint() async -> String? {
        var iterator = checkpoints.makeAsyncIterator()
        return await iterator.next()
    }

    func shutdown() async {
        await server.shutdown()
    }
}

/// The upgrade requests a scripted server received.
final class HandshakeLog: Sendable {
    let requests = Mutex<[HTTPRequest]>([])
}

/// The server side of one scripted connection.
final class ScriptedPeer {
    let connection: WebSocketConnection
    /// The upgrade request (query: clientKey and token).
    let request: HTTPRequest
    private var messages: WebSocketInboundStream.Iterator
    private let checkpoints: AsyncStream<String>.Continuation

    static let clientKey = "ck_test_key"

    init(connection: WebSocketConnection, request: HTTPRequest, checkpoints: AsyncStream<String>.Continuation) {
        self.connection = connection
        self.request = request
        self.messages = connection.messages.makeAsyncIterator()
        self.checkpoints = checkpoints
    }

    /// Tells the test (waiting in `ScriptedChatterServer.checkpoint()`) that the script got this far.
    func checkpoint(_ name: String) {
        checkpoints.yield(name)
    }

    /// The `session.ready` every script starts with.
    static let ready = SessionReady(
        userId: "01JB8ZAAAAAAAAAAAAAAAAAAAA", deviceId: "01JB8ZDDDDDDDDDDDDDDDDDDDD",
        serverTime: Timestamp(millisecondsSince1970: 1_792_591_391_482), heartbeatIntervalMs: 25_000)

    func sendReady(_ ready: SessionReady = ScriptedPeer.ready) async throws {
        try await send(.sessionReady(ready))
    }

    /// Sends a server frame encoded by the wire model.
    func send(_ event: ServerEvent, replyTo: String? = nil) async throws {
        let data = try ServerFrame(event, replyTo: replyTo).jsonData()
        try await connection.send(text: String(decoding: data, as: UTF8.self))
    }

    /// Sends `text` as it is, malformed or not.
    func send(raw text: String) async throws {
        try await connection.send(text: text)
    }

    /// Answers `frame` (which must carry an id) with `event`.
    func reply(to frame: ClientFrame, with event: ServerEvent) async throws {
        guard let id = frame.id else { throw ScriptError.noID(frame.request.type) }
        try await send(event, replyTo: id)
    }

    /// The client's next frame, decoded by the wire model.
    func receive() async throws -> ClientFrame {
        guard let message = await messages.next() else { throw ScriptError.closedWhileReceiving }
        guard case .text(let text) = message else { throw ScriptError.binaryFrame }
        return try ClientFrame(jsonData: Data(text.utf8))
    }

    /// Starts the close handshake with `code` and `reason` and waits until it is done.
    @discardableResult
    func close(code: UInt16, reason: String = "") async -> WebSocketCloseInfo {
        await connection.close(code: WebSocketCloseCode(rawValue: code), reason: reason)
    }

    /// Drops the TCP connection without a close frame, as a crashed server or a lost network would.
    func vanish() async {
        connection.channel.close()
        _ = await connection.closeInfo
    }

    /// Waits until the client closes the connection (or it drops); returns the frames received meanwhile.
    @discardableResult
    func waitForClose() async -> (info: WebSocketCloseInfo, unread: [WebSocketMessage]) {
        var unread: [WebSocketMessage] = []
        while let message = await messages.next() { unread.append(message) }
        return (await connection.closeInfo, unread)
    }

    /// Sends a binary frame.
    func send(binary bytes: [UInt8]) async throws {
        try await connection.send(binary: bytes)
    }

    enum ScriptError: Error {
        case closedWhileReceiving
        case binaryFrame
        case noID(String)
        case serverStopped
    }
}

/// Sample payloads for the scripts.
enum RealtimeFixture {
    static let conversation: Conversation.ID = "01JE0000000000000000000000"
    static let ben: User.ID = "01JC0000000000000000000000"

    static func messageSend(_ clientMessageId: ClientMessageID, body: String = "See you at 8?") -> MessageSend {
        MessageSend(
            conversationId: conversation, clientMessageId: clientMessageId,
            content: MessageContent(kind: .text, body: body))
    }

    static func ack(for send: MessageSend, seq: Int) -> MessageAck {
        MessageAck(
            clientMessageId: send.clientMessageId, messageId: Message.ID("01JF00000000000000000000\(seq)"),
            conversationId: send.conversationId, seq: seq, createdAt: Timestamp(millisecondsSince1970: 1_792_592_411_482))
    }

    static func typing(_ isTyping: Bool) -> ServerEvent {
        .typing(TypingIndicator(conversationId: conversation, userId: ben, isTyping: isTyping))
    }
}

extension ChatterRealtimeConnection {
    /// Reads the next `count` events (the test's time limit catches a stream that stalls).
    func nextEvents(_ count: Int) async -> [RealtimeEvent] {
        var received: [RealtimeEvent] = []
        for await event in events {
            received.append(event)
            if received.count == count { break }
        }
        return received
    }
}
