import BotRuntime
import ChatterBots
import ChildProcesses
import Foundation
import SQLite
import TestSupport
import Testing

/// A fresh directory for store files, removed with everything in it on deinit.
final class StoreDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("BotStoreTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Identities and builders shared by the store tests.
enum Fixture {
    static let bot: User.ID = "U_BOT"
    static let alice: User.ID = "U_ALICE"
    static let ben: User.ID = "U_BEN"
    static let direct: Conversation.ID = "C_DIRECT"
    static let group: Conversation.ID = "C_GROUP"
    static let start = ManualClock.defaultStart

    static func message(
        _ conversation: Conversation.ID = direct, seq: Int, from sender: User.ID = alice, body: String? = nil,
        clientMessageId: ClientMessageID? = nil
    ) -> Message {
        Message(
            id: Message.ID("M_\(conversation.rawValue)_\(seq)"), conversationId: conversation, seq: seq, senderId: sender,
            clientMessageId: clientMessageId, kind: .text, body: body ?? "message \(seq)",
            createdAt: Timestamp(start.addingTimeInterval(TimeInterval(seq))))
    }

    static func conversation(
        _ id: Conversation.ID = direct, lastSeq: Int = 0, updatedAt: Date = start, kind: Conversation.Kind = .direct
    ) -> Conversation {
        Conversation(
            id: id, kind: kind, members: [Member(userId: bot, role: .member), Member(userId: alice, role: .member)],
            lastSeq: lastSeq, createdAt: Timestamp(start), updatedAt: Timestamp(updatedAt))
    }

    static func ack(_ clientMessageId: ClientMessageID, in conversation: Conversation.ID = direct, seq: Int) -> MessageAck {
        MessageAck(
            clientMessageId: clientMessageId, messageId: Message.ID("M_\(conversation.rawValue)_\(seq)"),
            conversationId: conversation, seq: seq, createdAt: Timestamp(start.addingTimeInterval(TimeInterval(seq))))
    }

    static func send(_ text: String, to conversation: Conversation.ID = direct, id: ClientMessageID = .random()) -> MessageSend {
        MessageSend(conversationId: conversation, clientMessageId: id, content: .text(text))
    }
}

/// Opens a store in `directory`, by default on a manual clock at ``Fixture/start``.
func openStore(
    in directory: StoreDirectory, name: String = "bot.sqlite", clock: any ChatterClock = ManualClock()
) async throws -> BotStore {
    try await BotStore.open(path: directory.file(name), clock: clock)
}

/// Opens a store with the conversation `Fixture.direct` recorded from its first message.
func openStoreWithDirectConversation(in directory: StoreDirectory, clock: any ChatterClock = ManualClock()) async throws -> BotStore {
    let store = try await openStore(in: directory, clock: clock)
    try await store.recordConversations([Fixture.conversation()])
    return store
}

/// Handles `message` with a unit that has no effects, and returns the receipt.
@discardableResult
func handle(_ message: Message, in store: BotStore) async throws -> CommitReceipt {
    try await store.commit(UnitOfWork(handling: message, bot: Fixture.bot))
}

/// A second connection to a store's file, to look at its rows directly.
func inspect<T: Sendable>(_ path: String, _ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    let queue = try await DatabaseQueue(path: path)
    do {
        let result = try await queue.read(body)
        await queue.close()
        return result
    } catch {
        await queue.close()
        throw error
    }
}

/// The permission bits of the file at `path`.
func permissions(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return try #require(attributes[.posixPermissions] as? Int)
}

/// Runs the `sqlite3` command-line shell on `path` with `script` on its standard input; returns its output.
/// The child's output and exit are awaited off the cooperative pool, for at most a minute.
func sqlite3(_ path: String, _ script: String) async throws -> String {
    let child = try ChildProcess([try TestPeer.command("sqlite3"), "-batch", path], standardError: .standardOutput)
    child.send(Data(script.utf8))
    let data = try await child.allOutput(timeout: .hangGuard)
    guard await child.termination(timeout: .hangGuard) != nil else {
        child.kill()
        throw DeadlineExceeded("sqlite3 to exit", timeout: .hangGuard)
    }
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The store error `body` throws, or nil when it does not throw.
func storeError(_ body: () async throws -> Void) async -> BotStoreError? {
    do {
        try await body()
        return nil
    } catch let error as BotStoreError {
        return error
    } catch {
        Issue.record("not a BotStoreError: \(error)")
        return nil
    }
}
