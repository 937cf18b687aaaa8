import ChatterBots
import Synchronization

/// Failures a test injects into a store, to prove that the runtime recovers from them: the unit of work handling
/// a given message fails inside its savepoint, as a SQLite error in its writes would, and is refused alone (a unit
/// without effects, which only marks its message handled, never fails); forgetting a carried-out message action
/// fails as its delete would. Nothing is armed outside tests, and then the one check per write is an atomic read.
package final class StoreFaults: Sendable {
    private struct Failure {
        var matches: @Sendable (Message) -> Bool
        var left: Int
    }

    private let isArmed = Atomic<Bool>(false)
    private let failures = Mutex<[Failure]>([])
    /// How many of the next deletions of a message action's row fail.
    private let forgetFailuresLeft = Mutex(0)

    package init() {}

    /// The next `count` units that handle a message `matching` fail.
    package func failUnits(count: Int = 1, handling matching: @escaping @Sendable (Message) -> Bool) {
        failures.withLock { $0.append(Failure(matches: matching, left: count)) }
        isArmed.store(true, ordering: .releasing)
    }

    /// The next `count` deletions of a carried-out message action's row fail.
    package func failForgettingMessageActions(count: Int = 1) {
        forgetFailuresLeft.withLock { $0 += count }
        isArmed.store(true, ordering: .releasing)
    }

    /// How many failures are still to come.
    package var pending: Int {
        failures.withLock { $0.reduce(0) { $0 + $1.left } } + forgetFailuresLeft.withLock { $0 }
    }

    /// Throws ``InjectedStoreFault`` when this deletion of a message action's `row` is one to fail.
    func checkForgetting(messageAction row: Int64) throws {
        guard isArmed.load(ordering: .acquiring) else { return }
        let fails = forgetFailuresLeft.withLock { left -> Bool in
            guard left > 0 else { return false }
            left -= 1
            return true
        }
        if fails { throw InjectedStoreFault(what: "the deletion of message action \(row)") }
    }

    /// Throws ``InjectedStoreFault`` when `unit` is one to fail; a failure counts only when `consuming` (a unit
    /// that fails inside a batch's savepoint is tried again on its own, where it must fail again).
    func check(_ unit: UnitOfWork, consuming: Bool = true) throws {
        guard isArmed.load(ordering: .acquiring), case .message(let message) = unit.trigger, !unit.hasNoEffects else { return }
        let fails = failures.withLock { failures -> Bool in
            guard let index = failures.firstIndex(where: { $0.left > 0 && $0.matches(message) }) else { return false }
            if consuming { failures[index].left -= 1 }
            return true
        }
        if fails { throw InjectedStoreFault(what: "the unit handling \(message.id)") }
    }
}

/// The failure ``StoreFaults`` injects.
struct InjectedStoreFault: Error, CustomStringConvertible {
    /// The write that failed.
    var what: String
    var description: String { "injected failure of \(what)" }
}
