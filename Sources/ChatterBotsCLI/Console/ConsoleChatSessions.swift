import BotRuntime
import ChatterBots
import Foundation

/// The console's chats as sandbox test users: one terminal `ChatClient` per account while at least one page
/// listens to it, fed the lines the page sends and showing what it prints. Its rules (typing, ✓ delivered, ✓✓
/// read, reconnects) are the terminal client's, so the browser shows exactly what `chat` would.
///
/// A session starts with its first listener and ends when its last one leaves (its input ends, so the client
/// quits); the task running it is this actor's.
actor ConsoleChatSessions {
    /// How many recent lines a page that joins a running session receives first.
    static let recentLimit = 300

    private struct Session {
        /// Tells this session from a later one of the same account.
        var number: UInt64
        var input: AsyncStream<String>.Continuation
        var typing: AsyncStream<Bool>.Continuation
        /// The username of the direct conversation the pages last opened in this chat, as far as known.
        var openWith: String?
        var listeners: [UInt64: AsyncStream<[ScreenLine]>.Continuation] = [:]
        var recent: [ScreenLine] = []
        var task: Task<Void, Never>?
    }

    private let server: ChatterServerConfiguration
    /// Where each account's device file lives, so the console's chat is one device of the user across runs.
    private let deviceDirectory: URL?
    /// How long one REST request of the chats' clients may take in all, in real time.
    private let restRequestTimeouts: RESTRequestTimeouts
    private var sessions: [String: Session] = [:]
    private var nextListener: UInt64 = 0
    private var nextSession: UInt64 = 0

    init(server: ChatterServerConfiguration, deviceDirectory: URL?, restRequestTimeouts: RESTRequestTimeouts) {
        self.server = server
        self.deviceDirectory = deviceDirectory
        self.restRequestTimeouts = restRequestTimeouts
    }

    /// Listens to `account`'s chat, starting its client if none runs: the recent lines first, then each batch the
    /// client prints; the stream ends when the client stops.
    func listen(as account: SandboxTestAccount) -> (id: UInt64, lines: AsyncStream<[ScreenLine]>) {
        nextListener += 1
        let id = nextListener
        let (lines, sink) = AsyncStream<[ScreenLine]>.makeStream()
        if sessions[account.username] == nil { start(account) }
        if let recent = sessions[account.username]?.recent, !recent.isEmpty { sink.yield(recent) }
        sessions[account.username]?.listeners[id] = sink
        return (id, lines)
    }

    /// Stops listening; the last listener to leave ends the session.
    func stopListening(as username: String, id: UInt64) {
        guard var session = sessions[username] else { return }
        session.listeners[id]?.finish()
        session.listeners[id] = nil
        if session.listeners.isEmpty {
            session.input.finish()
            session.typing.finish()
            sessions[username] = nil
        } else {
            sessions[username] = session
        }
    }

    /// Types `line` into `username`'s chat; false when no page listens to it (no client runs). `with` is the friend
    /// whose direct conversation the sending page shows: pages of one account share a chat, so when another page
    /// opened another conversation since, this one's is opened again first.
    func type(_ line: String, as username: String, with: String? = nil) -> Bool {
        guard var session = sessions[username] else { return false }
        let (lines, openWith) = Self.lines(typing: line, with: with, openWith: session.openWith)
        for typed in lines { session.input.yield(typed) }
        session.openWith = openWith
        sessions[username] = session
        return true
    }

    /// What to type for `line` from a page showing the conversation with `with`, while the chat's open conversation
    /// is the one with `openWith` (nil: not known); and who it is with afterwards.
    static func lines(typing line: String, with: String?, openWith: String?) -> (lines: [String], openWith: String?) {
        let words = line.split(separator: " ", omittingEmptySubsequences: true)
        switch words.first {
        case "/dm":
            return ([line], words.count == 2 ? String(words[1]) : nil)
        case "/open", "/quit":
            return ([line], nil)
        default:
            // A message, or `/react`, acts on the open conversation; other commands on none.
            let needsConversation = !line.hasPrefix("/") || line.hasPrefix("//") || words.first == "/react"
            guard let with, with != openWith, needsConversation else { return ([line], openWith) }
            return (["/dm \(with)", line], with)
        }
    }

    /// Tells `username`'s chat whether its text field holds something; false when no page listens to it.
    func setTyping(_ isTyping: Bool, as username: String) -> Bool {
        guard let session = sessions[username] else { return false }
        session.typing.yield(isTyping)
        return true
    }

    private func start(_ account: SandboxTestAccount) {
        let (input, inputSink) = AsyncStream<String>.makeStream()
        let (typing, typingSink) = AsyncStream<Bool>.makeStream()
        let (printed, printer) = AsyncStream<[ScreenLine]>.makeStream()
        var settings = ChatClientConfiguration(
            server: server, username: account.username, password: account.password, dataDirectory: deviceDirectory,
            device: DeviceDescription(name: "ChatterBots web console", platform: "web"))
        settings.restRequestTimeouts = restRequestTimeouts
        let configuration = settings
        nextSession += 1
        let number = nextSession
        sessions[account.username] = Session(number: number, input: inputSink, typing: typingSink)
        let task = Task {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do throws(ChatClientError) {
                        try await ChatClient(configuration: configuration).run(input: input, typing: typing) { printer.yield($0) }
                    } catch {
                        printer.yield([ScreenLine("The chat stopped: \(error)", tone: .error)])
                    }
                    printer.finish()
                }
                group.addTask {
                    for await lines in printed { await self.show(lines, to: account.username) }
                }
            }
            inputSink.finish()
            typingSink.finish()
            self.ended(account.username, number: number)
        }
        sessions[account.username]?.task = task
    }

    private func show(_ lines: [ScreenLine], to username: String) {
        guard var session = sessions[username] else { return }
        session.recent.append(contentsOf: lines)
        if session.recent.count > Self.recentLimit { session.recent.removeFirst(session.recent.count - Self.recentLimit) }
        for listener in session.listeners.values { listener.yield(lines) }
        sessions[username] = session
    }

    /// The client stopped on its own (sign-in refused, `/quit`): its listeners' streams end.
    private func ended(_ username: String, number: UInt64) {
        guard let session = sessions[username], session.number == number else { return }
        for listener in session.listeners.values { listener.finish() }
        sessions[username] = nil
    }
}
