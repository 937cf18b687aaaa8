/// What `/healthz` says of a fleet by default, bounded whatever its size: how many bots there are in each state, and
/// the bots that are not live, those an operator must act on first (stopped or crashing, then reconnecting, then on
/// their way up or down), each group in configuration order, at most `limit` of them (`HealthTally`'s rule).
package struct HealthSummary: Sendable, Equatable {
    /// Bots in the fleet.
    package var total: Int
    /// Bots per state (`BotStatus.State`'s raw values), over the whole fleet.
    package var states: [String: Int]
    /// The bots not live that the summary names, most urgent first.
    package var notLive: [BotStatus]
    /// Every bot not live, named or not.
    package var notLiveCount: Int

    /// Whether every bot, and at least one, is connected.
    package var everyBotConnected: Bool

    /// The summary of `bots` (in configuration order), naming at most `limit` bots.
    package init(bots: [BotStatus], limit: Int = NameSample.limit) {
        var tally = HealthTally()
        for (index, bot) in bots.enumerated() {
            tally.join(index, rank: index)
            tally.report(index, state: bot.state, connected: bot.connected)
        }
        self.init(counts: Counts(tally: tally), notLive: tally.notLive(limit: max(0, limit)).map { bots[$0] })
    }

    /// The summary of `counts`, naming `notLive` (the statuses of the first bots not live).
    init(counts: Counts, notLive: [BotStatus]) {
        total = counts.total
        states = counts.states
        self.notLive = notLive
        notLiveCount = counts.notLiveCount
        everyBotConnected = counts.everyBotConnected
    }

    /// The numbers of a `HealthTally` at one instant, apart from it (a copy of the tally would make its next change
    /// copy every bot's entry).
    struct Counts: Sendable {
        var total: Int
        var states: [String: Int]
        var notLiveCount: Int
        var everyBotConnected: Bool

        init(tally: HealthTally) {
            total = tally.total
            states = tally.states
            notLiveCount = tally.notLiveCount
            everyBotConnected = tally.everyBotConnected
        }
    }
}
