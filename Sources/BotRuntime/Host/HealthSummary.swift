/// What `/healthz` says of a fleet by default, bounded whatever its size: how many bots there are in each state, and
/// the bots that are not live, those an operator must act on first (stopped or crashing, then reconnecting, then on
/// their way up or down), each group in configuration order, at most `limit` of them.
package struct HealthSummary: Sendable, Equatable {
    /// Bots in the fleet.
    package var total: Int
    /// Bots per state (`BotStatus.State`'s raw values), over the whole fleet.
    package var states: [String: Int]
    /// The bots not live that the summary names, most urgent first.
    package var notLive: [BotStatus]
    /// Every bot not live, named or not.
    package var notLiveCount: Int

    /// The summary of `bots` (in configuration order), naming at most `limit` bots.
    package init(bots: [BotStatus], limit: Int = NameSample.limit) {
        total = bots.count
        states = bots.reduce(into: [:]) { $0[$1.state.rawValue, default: 0] += 1 }
        let notLive = bots.enumerated().filter { $0.element.state != .live }
        notLiveCount = notLive.count
        self.notLive = notLive
            .sorted { (Self.urgency($0.element.state), $0.offset) < (Self.urgency($1.element.state), $1.offset) }
            .prefix(max(0, limit)).map(\.element)
    }

    /// 0 for a bot that needs an operator, 1 for one cut off from the server, 2 for one on its way.
    private static func urgency(_ state: BotStatus.State) -> Int {
        switch state {
        case .stopped, .crashing: 0
        case .reconnecting: 1
        case .starting, .signingIn, .connecting, .synchronizing, .stopping, .live: 2
        }
    }
}
