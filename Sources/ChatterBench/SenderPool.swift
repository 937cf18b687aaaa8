import ChatterBots
import Dispatch
import Foundation
import Synchronization

/// The people of a scenario, each on a realtime socket of their own, in direct conversation with a bot: they send
/// `message.send` frames (`m<sender>.<index>`) and time the bot's replies (`echo: m<sender>.<index>`) as they
/// arrive as `message.new`. Times are monotonic nanoseconds.
final class SenderPool: Sendable {
    /// One person's socket and what it saw.
    final class Sender: Sendable {
        let index: Int
        let conversationId: Conversation.ID
        let connection: ChatterRealtimeConnection
        let credits: Credits
        private let log: Mutex<Log>

        struct Log {
            var sentAt: [UInt64] = []
            var repliedAt: [UInt64] = []
            var replies = 0
            var duplicateReplies = 0
            var errors = 0
        }

        init(index: Int, conversationId: Conversation.ID, connection: ChatterRealtimeConnection, window: Int) {
            self.index = index
            self.conversationId = conversationId
            self.connection = connection
            self.credits = Credits(window)
            self.log = Mutex(Log())
        }

        /// Makes room to record `count` messages.
        func reserve(_ count: Int) {
            log.withLock { log in
                log.sentAt = Array(repeating: 0, count: count)
                log.repliedAt = Array(repeating: 0, count: count)
                log.replies = 0
                log.duplicateReplies = 0
            }
        }

        /// Sends message `number` (waiting for a free slot of the window first).
        func send(_ number: Int) async {
            await credits.acquire()
            let send = MessageSend(
                conversationId: conversationId, clientMessageId: .random(),
                content: MessageContent(kind: .text, body: "m\(index).\(number)"))
            log.withLock { $0.sentAt[number] = DispatchTime.now().uptimeNanoseconds }
            do {
                try await connection.send(.sendMessage(send), id: "b\(number)")
            } catch {
                log.withLock { $0.errors += 1 }
                credits.release()
            }
        }

        /// Reads the socket until it closes: replies are timed, acks and other events skipped.
        func read() async {
            for await event in connection.events {
                guard case .frame(let frame) = event else { continue }
                switch frame.event {
                case .messageNew(let message) where message.senderId != connection.sessionReady.userId:
                    let now = DispatchTime.now().uptimeNanoseconds
                    guard let number = Self.number(inReply: message.body) else { continue }
                    let fresh = log.withLock { log -> Bool in
                        guard number < log.repliedAt.count else { return false }
                        if log.repliedAt[number] != 0 {
                            log.duplicateReplies += 1
                            return false
                        }
                        log.repliedAt[number] = now
                        log.replies += 1
                        return true
                    }
                    if fresh { credits.release() }
                case .error:
                    log.withLock { $0.errors += 1 }
                    credits.release()
                default:
                    break
                }
            }
        }

        var snapshot: Log { log.withLock { $0 } }

        /// `echo: m<sender>.<number>` → number.
        static func number(inReply body: String?) -> Int? {
            guard let body, let dot = body.lastIndex(of: ".") else { return nil }
            return Int(body[body.index(after: dot)...])
        }
    }

    let senders: [Sender]
    private let readers: [Task<Void, Never>]

    private init(senders: [Sender]) {
        self.senders = senders
        self.readers = senders.map { sender in Task { await sender.read() } }
    }

    /// Connects every person of `links` (one sender per link) to `endpoint`.
    static func connect(
        world: BenchWorld, links: [BenchWorld.Link], endpoint: ServerEndpoint, window: Int
    ) async throws -> SenderPool {
        var senders: [Sender] = []
        for (index, link) in links.enumerated() {
            let person = world.people[link.person]
            let connection = try await ChatterRealtimeConnection.connect(
                configuration: endpoint.configuration, accessToken: person.accessToken)
            senders.append(Sender(index: index, conversationId: link.conversationId, connection: connection, window: window))
        }
        return SenderPool(senders: senders)
    }

    /// Total replies received so far.
    var replies: Int { senders.reduce(0) { $0 + $1.snapshot.replies } }

    /// Waits until `count` replies have arrived; false after `timeout`.
    func waitForReplies(_ count: Int, timeout: Duration) async -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < timeout {
            if replies >= count { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return false
    }

    /// Closes every socket.
    func close() async {
        for sender in senders { await sender.connection.close() }
        for reader in readers { await reader.value }
    }
}

/// A counting semaphore for async code: at most `limit` messages in flight per sender.
final class Credits: Sendable {
    private struct State {
        var available: Int
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ limit: Int) {
        state = Mutex(State(available: limit))
    }

    func acquire() async {
        let acquired = state.withLock { state -> Bool in
            guard state.available > 0 else { return false }
            state.available -= 1
            return true
        }
        if acquired { return }
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                if state.available > 0 {
                    state.available -= 1
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// Takes up to `limit` credits that are free now, without waiting; returns how many it took.
    func acquireAvailable(upTo limit: Int) -> Int {
        guard limit > 0 else { return 0 }
        return state.withLock { state in
            let taken = min(limit, state.available)
            state.available -= taken
            return taken
        }
    }

    func release() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.available += 1
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume()
    }
}

extension SenderPool {
    /// Every sender sends the messages numbered `range`, concurrently; returns once all are written.
    func flood(_ range: Range<Int>) async {
        await withTaskGroup(of: Void.self) { group in
            for sender in senders {
                group.addTask {
                    for number in range { await sender.send(number) }
                }
            }
        }
    }
}
