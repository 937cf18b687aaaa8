import Foundation
import Synchronization

/// One crash suspect's turn alone at the process's `SuspectGate`, ended as its `SuspectTurnRules` decide: it gives
/// the gate back when they say so, and hands their other actions (the grace's end, the pass) to its owner.
final class SuspectTurn: Sendable {
    /// The suspect's work key.
    let key: String
    private let rules: Mutex<SuspectTurnRules>
    private let gateTurn: SuspectGate.Turn

    init(key: String, grace: Duration, gateTurn: SuspectGate.Turn) {
        self.key = key
        self.rules = Mutex(SuspectTurnRules(grace: grace))
        self.gateTurn = gateTurn
    }

    /// Applies `event`, which happened at `now`: gives the gate back if the rules end the turn; returns their actions.
    func handle(_ event: SuspectTurnRules.Event, now: Date) -> [SuspectTurnRules.Action] {
        let actions = rules.withLock { $0.handle(event, now: now) }
        if actions.contains(.endTurn) { gateTurn.end() }
        return actions
    }

    /// Whether the suspect still has its turn: its code runs, in time or in its grace.
    var hasTurn: Bool { rules.withLock { $0.hasTurn } }
}
