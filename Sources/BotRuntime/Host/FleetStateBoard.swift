import Synchronization

/// Where each bot of a supervisor is, as `/healthz` and `/readyz` count it: the supervisor posts joins, stops and
/// departures, and each bot (`BotStateReporter`) its state changes as they happen, so that the probes read the tallies
/// instead of asking every bot. Shared under a lock: a state change costs one short critical section, and messages
/// never come here.
final class FleetStateBoard: Sendable {
    /// The rules the board keeps up to date.
    struct Tallies: Sendable {
        var health = HealthTally()
        var readiness = FleetReadiness()
    }

    private let tallies = Mutex(Tallies())

    /// Reads or changes the tallies, as one step for every reader.
    func update<Result: Sendable>(_ body: (inout Tallies) -> Result) -> Result {
        tallies.withLock { body(&$0) }
    }

    /// How the bot `id` tells the board its state changes.
    func reporter(for id: Int) -> BotStateReporter {
        BotStateReporter(board: self, id: id)
    }

    /// The state the bot `id` is in now.
    func report(_ id: Int, state: BotStatus.State, connected: Bool, hasBeenLive: Bool) {
        update { tallies in
            tallies.health.report(id, state: state, connected: connected)
            if hasBeenLive { tallies.readiness.wentLive(id) }
        }
    }
}
