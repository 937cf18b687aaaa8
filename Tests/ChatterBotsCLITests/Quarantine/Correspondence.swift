import ChatterBots
import ChatterBotsCLI
import Foundation
import Synchronization
import TestSupport

/// What alice said to each bot and what each bot answered, kept across restarts of the process. Each message keeps
/// its client message id, so one whose post the process's death cut off is posted again on the next run (the
/// service stores it once).
final class Correspondence: Sendable {
    private struct Letter {
        var bot: String
        var text: String
        var id: ClientMessageID
        var posted: Bool
    }

    private struct State {
        var letters: [Letter] = []
        /// The last seq read of each bot's conversation.
        var lastSeq: [String: Int] = [:]
        var replies: [String: [String]] = [:]
    }

    private let state = Mutex(State())

    init() {}

    /// The bodies `bot` sent alice, in order.
    func replies(from bot: String) -> [String] {
        state.withLock { $0.replies[bot] ?? [] }
    }

    /// What alice said to `bot` (or tried to: a post cut off by a death is posted again later), in order.
    func said(to bot: String) -> [String] {
        state.withLock { $0.letters.filter { $0.bot == bot }.map(\.text) }
    }

    /// How many times `bot` sent `body`.
    func count(_ body: String, from bot: String) -> Int {
        replies(from: bot).count { $0 == body }
    }

    fileprivate func write(_ text: String, to bot: String) -> ClientMessageID {
        let id = ClientMessageID.random()
        state.withLock { $0.letters.append(Letter(bot: bot, text: text, id: id, posted: false)) }
        return id
    }

    fileprivate func posted(_ id: ClientMessageID) {
        state.withLock { state in
            if let index = state.letters.firstIndex(where: { $0.id == id }) { state.letters[index].posted = true }
        }
    }

    fileprivate var unposted: [(bot: String, text: String, id: ClientMessageID)] {
        state.withLock { $0.letters.filter { !$0.posted }.map { ($0.bot, $0.text, $0.id) } }
    }

    fileprivate func lastSeq(of bot: String) -> Int {
        state.withLock { $0.lastSeq[bot] ?? 0 }
    }

    fileprivate func read(_ messages: [Message], from bot: String, botUser: User.ID) {
        state.withLock { state in
            for message in messages where message.seq > (state.lastSeq[bot] ?? 0) {
                state.lastSeq[bot] = message.seq
                if message.senderId == botUser { state.replies[bot, default: []].append(message.body ?? "") }
            }
        }
    }
}

/// Alice signed in to one run's embedded sandbox, in her direct conversations with the bots.
struct Alice: Sendable {
    private struct Chat: Sendable {
        var conversation: Conversation.ID
        var bot: User.ID
    }

    let client: ChatterRESTClient
    let correspondence: Correspondence
    private let chats: [String: Chat]

    /// Signs alice in to `run`'s sandbox (a new device each run) and opens her conversations with `bots`.
    static func signIn(to run: CrashTestRun, bots: [String], correspondence: Correspondence) async throws -> Alice {
        // Waits out the sandbox's rate limits rather than failing: a flood and the polls for replies share them.
        let client = ChatterRESTClient(
            configuration: try await run.server(), retryPolicy: RESTRetryPolicy(maxRetries: 20, maxWait: .seconds(60)),
            requestTimeouts: .hangGuard)
        _ = try await client.login(
            username: SandboxTestAccount.alice.username, password: SandboxTestAccount.alice.password, deviceId: nil,
            device: DeviceDescription(name: "crash tests", platform: "test"))
        var chats: [String: Chat] = [:]
        for bot in bots {
            guard let user = try await client.users(username: "\(bot)_bot").first(where: { $0.username == "\(bot)_bot" })
            else { throw ProcessTestError("the sandbox has no account \(bot)_bot") }
            chats[bot] = Chat(conversation: try await client.directConversation(with: user.id).id, bot: user.id)
        }
        return Alice(client: client, correspondence: correspondence, chats: chats)
    }

    private func chat(_ bot: String) throws -> Chat {
        guard let chat = chats[bot] else { throw ProcessTestError("alice has no conversation with \(bot)") }
        return chat
    }

    /// Posts `text` to `bot`. When the post fails (the process died meanwhile) it is kept for `postUnposted()`.
    func say(_ text: String, to bot: String) async throws {
        let id = correspondence.write(text, to: bot)
        _ = try await client.postMessage(.text(text), clientMessageId: id, in: try chat(bot).conversation)
        correspondence.posted(id)
    }

    /// Posts again what a death of the process cut off, with the same client message ids.
    func postUnposted() async throws {
        for letter in correspondence.unposted {
            _ = try await client.postMessage(.text(letter.text), clientMessageId: letter.id, in: try chat(letter.bot).conversation)
            correspondence.posted(letter.id)
        }
    }

    /// Reads the messages stored since the last read in each conversation.
    func readReplies() async throws {
        for (bot, chat) in chats {
            while true {
                let page = try await client.messages(in: chat.conversation, afterSeq: correspondence.lastSeq(of: bot))
                correspondence.read(page.messages, from: bot, botUser: chat.bot)
                if !page.hasMore || page.messages.isEmpty { break }
            }
        }
    }

    /// Waits until each bot sent each of its `expected` bodies at least once (or `stopEarly` holds), reading every
    /// 250 ms: each read is a request, under the sandbox's rate limits. Returns whether they all came.
    @discardableResult
    func waitForReplies(
        _ expected: [String: [String]], timeout: Duration = .hangGuard, stopEarly: @Sendable () -> Bool = { false }
    ) async -> Bool {
        func arrived() -> Bool {
            expected.allSatisfy { bot, bodies in
                let replies = Set(correspondence.replies(from: bot))
                return bodies.allSatisfy(replies.contains)
            }
        }
        let clock = ContinuousClock()
        let end = clock.now.advanced(by: timeout)
        while clock.now < end {
            try? await readReplies()
            if arrived() || stopEarly() { break }
            try? await Task.sleep(for: .milliseconds(250))
        }
        return arrived()
    }
}
