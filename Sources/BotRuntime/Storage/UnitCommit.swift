import ChatterBots
import Foundation
import SQLite

/// Applies one ``UnitOfWork`` inside a transaction of the store's writer (and inside the unit's savepoint).
///
/// The trigger goes first, so a unit for a message that is already handled, or an occurrence that is not
/// claimed, is refused before any of its effects is written.
enum UnitCommit {
    static func apply(_ unit: UnitOfWork, in workspace: CursorWorkspace) throws -> CommitReceipt {
        let db = try workspace.db
        let now = workspace.now
        var contiguousSeq: Int?
        var job: ScheduledJobRecord?
        switch unit.trigger {
        case .message(let message) where unit.marksTriggerDone:
            contiguousSeq = try workspace.markHandled(message)
        case .occurrence(let occurrence) where unit.marksTriggerDone:
            job = try ScheduleWrites.complete(occurrence, nextDueAt: unit.nextDueAt, now: now, db: db)
        case .message, .occurrence, .direct:
            break
        }
        for (address, value) in unit.stateWrites {
            if let value {
                try StateWrites.set(value, forKey: address.key, in: address.scope, now: now, db: db)
            } else {
                try StateWrites.remove(forKey: address.key, in: address.scope, db: db)
            }
        }
        for change in unit.jobChanges {
            switch change {
            case .add(let new): try ScheduleWrites.add(new, now: now, db: db)
            case .cancel(let id): _ = try ScheduleWrites.cancel(id, now: now, db: db)
            }
        }
        if job != nil, case .occurrence(let occurrence) = unit.trigger,
            unit.jobChanges.contains(where: { if case .cancel(occurrence.job.id) = $0 { true } else { false } })
        {
            job = try ScheduleWrites.job(occurrence.job.id, db: db)
        }
        for (address, dialog) in unit.dialogWrites {
            if let dialog {
                try DialogWrites.set(dialog, user: address.user, conversation: address.conversation, now: now, db: db)
            } else {
                try db.execute(sql: DialogSQL.delete, arguments: [address.user.rawValue, address.conversation.rawValue])
            }
        }
        if !unit.crashBookkeeping.isEmpty { try QuarantineWrites.apply(unit.crashBookkeeping, now: now, db: db) }
        let (entries, created) = try OutboxWrites.insert(unit.sends, origin: unit.origin, in: workspace)
        let actions = unit.messageActions.isEmpty ? [] : try MessageActionWrites.insert(unit.messageActions, now: now, db: db)
        var released: [Message] = []
        if unit.marksTriggerDone, case .message(let message) = unit.trigger {
            released = try workspace.release(message.conversationId)
        }
        var receipt = CommitReceipt(
            outboxEntries: entries, createdEntries: created, contiguousSeq: contiguousSeq, job: job, released: released)
        receipt.messageActions = actions
        return receipt
    }
}
