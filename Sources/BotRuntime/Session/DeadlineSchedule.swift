import Foundation

/// The deadlines of one session, at most one per key, kept in order: which comes first, and which are due at an
/// instant. A plain value with no clock: `DeadlineScheduler` sleeps until `earliest` and asks `takeDue(at:)`.
///
/// Deadlines due at the same instant come out in the order they were scheduled.
package struct DeadlineSchedule<Key: Hashable & Sendable>: Sendable {
    private struct Entry: Sendable {
        var key: Key
        var deadline: Date
    }

    /// By deadline, then by order of scheduling.
    private var entries: [Entry] = []

    package init() {}

    /// The first deadline, nil when none is scheduled.
    package var earliest: Date? { entries.first?.deadline }

    /// How many deadlines are scheduled.
    package var count: Int { entries.count }

    /// The deadline scheduled for `key`, if any.
    package func deadline(of key: Key) -> Date? {
        entries.first { $0.key == key }?.deadline
    }

    /// Schedules `key` at `deadline`, replacing the deadline it had.
    package mutating func schedule(_ key: Key, at deadline: Date) {
        cancel(key)
        let entry = Entry(key: key, deadline: deadline)
        // After every entry due at or before it: same-instant entries keep their scheduling order.
        let index = entries.firstIndex { $0.deadline > deadline } ?? entries.endIndex
        entries.insert(entry, at: index)
    }

    /// Removes `key`'s deadline, if it has one.
    package mutating func cancel(_ key: Key) {
        entries.removeAll { $0.key == key }
    }

    /// Removes and returns the keys due at `now` (deadline at or before it), earliest first.
    package mutating func takeDue(at now: Date) -> [Key] {
        let dueCount = entries.firstIndex { $0.deadline > now } ?? entries.endIndex
        guard dueCount > 0 else { return [] }
        let due = entries[..<dueCount].map(\.key)
        entries.removeFirst(dueCount)
        return due
    }
}
