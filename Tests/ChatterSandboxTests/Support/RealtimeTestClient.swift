import ChatterBots
import ChatterSandbox
import Foundation
import TestSupport
import Testing
import WebSocket

/// What a test client could not get in time.
struct RealtimeTestClientError: Error, CustomStringConvertible {
    var description: String
}

/// The frames a test client received, in order, waited for with a real-time bound.
actor FrameInbox {
    private var frames: [ServerFrame] = []
    private var undecodable: [String] = []
    private var finished = false
    private var waiter: (id: Int, continuation: CheckedContinuation<ServerFrame?, Never>)?
    private var nextWaiterID = 0

    func push(_ text: String) {
        guard let frame = try? ServerFrame(jsonData: Data(text.utf8)) else {
            undecodable.append(text)
            return
        }
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: frame)
        } else {
            frames.append(frame)
        }
    }

    func finish() {
        finished = true
        for waiter in finishWaiters.values { waiter.resume(returning: true) }
        finishWaiters = [:]
        waiter?.continuation.resume(returning: nil)
        waiter = nil
    }

    private var finishWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]

    /// Waits until the connection ended (true) or `timeout` passed (false), without consuming frames.
    func waitUntilFinished(timeout: Duration) async -> Bool {
        if finished { return true }
        nextWaiterID += 1
        let id = nextWaiterID
        return await withCheckedContinuation { continuation in
            finishWaiters[id] = continuation
            Task {
                try? await Task.sleep(for: timeout)
                self.finishWaiters.removeValue(forKey: id)?.resume(returning: false)
            }
        }
    }

    /// Frames the server sent that are not valid server frames (a conformance failure in itself).
    var malformed: [String] { undecodable }

    /// The next frame, or nil when the connection ended or `timeout` passed first.
    func next(timeout: Duration) async -> ServerFrame? {
        if !frames.isEmpty { return frames.removeFirst() }
        if finished { return nil }
        nextWaiterID += 1
        let id = nextWaiterID
        return await withCheckedContinuation { continuation in
            waiter = (id, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: nil)
    }
}

/// A device's realtime connection as a test drives it: our `WebSocketClient` underneath, frames decoded with
/// the ChatterBots wire types, every wait bounded in real time.
final class RealtimeTestClient: Sendable {
    let connection: WebSocketConnection
    let inbox = FrameInbox()
    private let pump: Task<Void, Never>

    private init(connection: WebSocketConnection) {
        self.connection = connection
        let inbox = self.inbox
        pump = Task {
            for await message in connection.messages {
                if case .text(let text) = message { await inbox.push(text) }
            }
            await inbox.finish()
        }
    }

    /// Connects to `url` (the sandbox's realtime URL with `clientKey` and `token`). The socket's own timeouts are
    /// hang guards: no test here is about them.
    static func connect(to url: URL) async throws -> RealtimeTestClient {
        let connection = try await WebSocketClient.connect(
            to: url, configuration: WebSocketClientConfiguration(
                connectTimeout: .hangGuard, handshakeTimeout: .hangGuard, closeTimeout: .hangGuard))
        return RealtimeTestClient(connection: connection)
    }

    /// Connects as `account` and reads `session.ready` and `presence.snapshot`.
    static func signIn(
        _ account: SeededAccount, to sandbox: Sandbox, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (client: RealtimeTestClient, ready: SessionReady, snapshot: [Presence]) {
        try await signIn(accessToken: account.session.accessToken, to: sandbox, sourceLocation: sourceLocation)
    }

    static func signIn(
        accessToken: String, to sandbox: Sandbox, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (client: RealtimeTestClient, ready: SessionReady, snapshot: [Presence]) {
        let client = try await connect(to: sandbox.webSocketURL(accessToken: accessToken))
        let first = try await client.next()
        guard case .sessionReady(let ready) = first.event else {
            throw RealtimeTestClientError(description: "expected session.ready first, got \(first)")
        }
        let second = try await client.next()
        guard case .presenceSnapshot(let snapshot) = second.event else {
            throw RealtimeTestClientError(description: "expected presence.snapshot after session.ready, got \(second)")
        }
        return (client, ready, snapshot)
    }

    func send(_ request: ClientRequest, id: String? = nil) async throws {
        let data = try ClientFrame(request, id: id).jsonData()
        try await connection.send(text: String(decoding: data, as: UTF8.self))
    }

    func send(text: String) async throws {
        try await connection.send(text: text)
    }

    /// The next frame; throws when none arrives within `timeout` or the connection ended. The default is a hang
    /// guard: a stalled machine can take a minute to deliver what is surely coming, and a test that waits for it
    /// only waits that long when it fails.
    func next(timeout: Duration = .hangGuard) async throws -> ServerFrame {
        guard let frame = await inbox.next(timeout: timeout) else {
            throw RealtimeTestClientError(description: "no frame within \(timeout) (or the connection ended)")
        }
        return frame
    }

    /// The next frame whose event matches; the frames skipped on the way are returned too, for assertions.
    func next(
        timeout: Duration = .hangGuard, where matches: (ServerEvent) -> Bool
    ) async throws -> (frame: ServerFrame, skipped: [ServerFrame]) {
        var skipped: [ServerFrame] = []
        while true {
            let frame = try await next(timeout: timeout)
            if matches(frame.event) { return (frame, skipped) }
            skipped.append(frame)
        }
    }

    /// Sends `ping` and returns every frame received before its `pong`: a barrier proving the server handled
    /// everything this client sent before.
    func framesBeforePong(id: String = "barrier") async throws -> [ServerFrame] {
        try await send(.ping, id: id)
        let (_, skipped) = try await next { event in event == .pong }
        return skipped
    }

    /// The next frame if one arrives within `timeout`, nil otherwise.
    func frame(within timeout: Duration) async -> ServerFrame? {
        await inbox.next(timeout: timeout)
    }

    /// How the connection ended; throws if it is still open after `timeout`.
    func closeInfo(timeout: Duration = .hangGuard) async throws -> WebSocketCloseInfo {
        guard await inbox.waitUntilFinished(timeout: timeout) else {
            throw RealtimeTestClientError(description: "the connection is still open after \(timeout)")
        }
        return await connection.closeInfo
    }

    func close() async {
        await connection.close()
        pump.cancel()
    }
}
