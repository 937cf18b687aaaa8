import Foundation
import ChatterBots
import SQLite

/// Why a ``BotStore`` operation failed, or why one unit of a group commit was refused.
///
/// Unit refusals (`alreadyHandled`, `outOfOrder`, `unknownConversation`, `occurrenceNotClaimed`) leave the
/// unit without any effect and other units of the same group commit unaffected. `storage` means SQLite
/// itself failed (disk full, I/O error, closed database): nothing of the operation was written.
package enum BotStoreError: Error, CustomStringConvertible {
    /// The database failed during `operation`; `underlying` is the SQLite module's error (an ``SQLiteError``
    /// with its result codes, or a ``DatabaseError``). Nothing of the operation was written.
    case storage(operation: String, underlying: any Error)
    /// The message was already handled (its seq is at or below the conversation's contiguous seq, or its id
    /// is recorded as seen): the unit that handled it again was dropped, so its effects are not applied twice.
    case alreadyHandled(Message.ID, conversation: Conversation.ID, seq: Int)
    /// The message is not the next one of its conversation: messages are handled in seq order, and the
    /// conversation is still waiting for `expectedSeq`.
    case outOfOrder(Message.ID, conversation: Conversation.ID, seq: Int, expectedSeq: Int)
    /// The conversation has no cursor yet: record it (``BotStore/recordConversations(_:newConversationsStart:)``)
    /// before admitting or handling its messages.
    case unknownConversation(Conversation.ID)
    /// The job occurrence is not the claimed one (it was never claimed, or already completed): its unit was
    /// dropped so that an occurrence never completes twice.
    case occurrenceNotClaimed(ScheduledJob.ID, occurrence: Int)
    /// A value could not be encoded as JSON for storage.
    case unencodableValue(key: String, type: String, reason: String)
    /// The stored JSON under `key` in `scope` does not decode as `type`: the type changed since it was
    /// written. Read it as the old type (or as `JSONValue`) and write it back, or remove the key.
    case undecodableValue(key: String, scope: StateScope, type: String, reason: String)
    /// A row holds data this version cannot read (a damaged file, or one written by a newer version).
    case corruptRecord(table: String, key: String, reason: String)
    /// The store at `path` is open elsewhere (``StoreLock``): another process runs its bot, or, `inThisProcess`, this
    /// process opened it already. Nothing was read or written.
    case inUse(path: String, inThisProcess: Bool)
    /// Another session of the bot claimed the store at `path` to open it (the bot starts, or a reload replaces its
    /// session) and had neither opened it nor given it up after `waited`: a request for the file was not carried
    /// out. Nothing was read or written.
    case stillOpening(path: String, waited: Duration)
    /// The store at `path` was exported to `file` at `movedAt` (`example-bots export`): its bot is the device now
    /// running where that file was imported, and this copy must not run again. The bot's data was left as it was.
    case moved(path: String, file: String, movedAt: Date)

    /// The SQLite extended result code when SQLite reported the failure (e.g. `SQLITE_FULL`), else nil.
    public var sqliteResultCode: ResultCode? {
        if case .storage(_, let underlying) = self, let error = underlying as? SQLiteError {
            return error.extendedCode
        }
        return nil
    }

    public var description: String {
        switch self {
        case .storage(let operation, let underlying):
            return "The bot store could not \(operation): \(underlying)"
        case .alreadyHandled(let id, let conversation, let seq):
            return "Message \(id) (seq \(seq) in \(conversation)) was already handled; its unit was dropped, so nothing is applied twice."
        case .outOfOrder(let id, let conversation, let seq, let expected):
            return "Message \(id) has seq \(seq) but conversation \(conversation) expects seq \(expected) next: "
                + "handle messages in seq order (take parked ones from nextDeliverable)."
        case .unknownConversation(let id):
            return "Conversation \(id) has no cursor: record it with recordConversations before admitting or handling its messages."
        case .occurrenceNotClaimed(let id, let occurrence):
            return "Occurrence \(occurrence) of job \(id) is not claimed (never claimed, or already completed); its unit was dropped."
        case .unencodableValue(let key, let type, let reason):
            return "The value for \"\(key)\" (\(type)) cannot be encoded as JSON: \(reason)."
        case .undecodableValue(let key, let scope, let type, let reason):
            return "The stored value for \"\(key)\" (\(scope)) does not decode as \(type): \(reason). "
                + "Read it as its old type or as JSONValue and write it back, or remove the key."
        case .corruptRecord(let table, let key, let reason):
            return "A row of \(table) (\(key)) cannot be read: \(reason). The file is damaged or was written by a newer version."
        case .inUse(let path, true):
            return "The store at \(path) is open already in this process: one bot name runs once per data directory."
        case .inUse(let path, false):
            return "Another process runs bot \(Self.botName(path)) (its store \(path) is locked): stop it first, "
                + "or give this process its own dataDirectory."
        case .stillOpening(let path, let waited):
            return "Bot \(Self.botName(path)) has been opening its store \(path) for \(waited) (it is starting, or a "
                + "reload replaces its session) and the request was not carried out: send it again once the bot is live "
                + "or stopped."
        case .moved(let path, let file, let movedAt):
            return "Bot \(Self.botName(path)) was moved: its store \(path) was exported to \(file) at "
                + "\(movedAt.formatted(.iso8601)), and it runs where that file was imported. To run it here again, import "
                + "it back (`import \(file)`). Deleting \(path) starts the bot afresh as a NEW device instead, losing "
                + "its device, cursors and unsent messages."
        }
    }

    /// The bot a store file belongs to: its file name without `.sqlite`.
    static func botName(_ path: String) -> String {
        let name = URL(fileURLWithPath: path).lastPathComponent
        return name.hasSuffix(".sqlite") ? String(name.dropLast(".sqlite".count)) : name
    }

    /// `error` as a store error: unchanged when it already is one, else the storage failure of `operation`.
    init(_ error: any Error, during operation: String) {
        if let error = error as? BotStoreError {
            self = error
        } else {
            self = .storage(operation: operation, underlying: error)
        }
    }
}

extension BotStoreError {
    /// Whether the store refused a unit because its trigger was handled already (a repeat, not a failure).
    var isAlreadyHandled: Bool {
        if case .alreadyHandled = self { true } else { false }
    }
}
