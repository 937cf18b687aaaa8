import Foundation

/// When a crash suspect's turn alone at the `SuspectGate` ends, and whether it passes (is no longer suspected): the
/// rules of `docs/quarantine.md` for a suspect whose code may outlive its timeout, as a value that takes what happens
/// to the suspect and says what to do.
///
/// - Its code returns: its turn ends and it passes, unless a stop of its session cut it short first (it then stays
///   a suspect for the next start).
/// - Its timeout gives up on it: it keeps its turn alone for `grace` more, so that a death then still has one
///   suspect to blame (and counts against it).
/// - The grace ends with its code still running: its turn ends and it passes all the same, so that a suspect that
///   never returns is not blamed for later deaths it did not cause.
/// - Its session stops (before it returned, or during its grace): its turn ends and it stays a suspect.
/// - Its session begins to stop (a shutdown drains the handlers that run): a grace ends at once, and a timeout then
///   starts none, since nothing is left to protect once the session stops; code still in its time keeps its turn
///   (and passes if it returns), as the drain lets it finish.
struct SuspectTurnRules: Sendable, Equatable {
    /// What happens to the suspect.
    enum Event: Sendable, Equatable {
        /// Its code returned; `cancelled` when its task was cancelled then (by a stop, unless its timeout came first).
        case returned(cancelled: Bool)
        /// Its timeout gave up on it; its code may still run.
        case timedOut
        /// The grace after its timeout is over.
        case graceOver
        /// Its session stops.
        case stopped
        /// Its session begins to stop, draining the handlers that run.
        case stopping
    }

    /// What to do.
    enum Action: Sendable, Equatable {
        /// Ends the grace (sends `graceOver`) at this instant.
        case scheduleGraceEnd(Date)
        /// Gives the gate back: the fleet runs again.
        case endTurn
        /// Clears the suspect; `afterGrace` when its code had not returned.
        case pass(afterGrace: Bool)
        /// Its code returned after its session stopped: nothing to do, it stays a suspect for the next start.
        case returnedAfterStop
    }

    enum Phase: Sendable, Equatable {
        case running
        case inGrace(until: Date)
        case passed
        case stopped
    }

    /// The grace after a handler timeout of `timeout`: as long again, so that work that kills the process slowly
    /// has twice its time to show it, while the fleet pauses at most that long for one suspect.
    static func grace(after timeout: Duration) -> Duration { timeout }

    let grace: Duration
    private(set) var phase = Phase.running
    /// Set by `stopping`: the session stops, so a timeout starts no grace.
    private(set) var sessionStops = false

    init(grace: Duration) {
        self.grace = grace
    }

    /// Whether the suspect still has its turn (running, or in its grace).
    var hasTurn: Bool {
        switch phase {
        case .running, .inGrace: true
        case .passed, .stopped: false
        }
    }

    /// What to do when `event` happens at `now`.
    mutating func handle(_ event: Event, now: Date) -> [Action] {
        switch (phase, event) {
        case (.running, .returned(cancelled: false)):
            phase = .passed
            return [.endTurn, .pass(afterGrace: false)]
        case (.running, .returned(cancelled: true)), (.running, .stopped), (.inGrace, .stopped), (.inGrace, .stopping):
            phase = .stopped
            return [.endTurn]
        case (.running, .stopping):
            sessionStops = true
            return []
        case (.running, .timedOut) where sessionStops:
            phase = .stopped
            return [.endTurn]
        case (.running, .timedOut):
            let end = now.addingTimeInterval(grace.timeInterval)
            phase = .inGrace(until: end)
            return [.scheduleGraceEnd(end)]
        case (.inGrace, .returned):
            phase = .passed
            return [.endTurn, .pass(afterGrace: false)]
        case (.inGrace, .graceOver):
            phase = .passed
            return [.endTurn, .pass(afterGrace: true)]
        case (.stopped, .returned):
            return [.returnedAfterStop]
        case (.running, .graceOver), (.inGrace, .timedOut), (.passed, _), (.stopped, _):
            return []
        }
    }
}
