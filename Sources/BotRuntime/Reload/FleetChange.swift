import ChatterBots

/// What a reload does to the running bots, from the bots in force and the bots of the new file (this shard's
/// only): the bots to start (new names), to stop (names gone), to restart (same name, any field of their
/// `BotConfiguration` different, options and a password read from a file included, or a bot that stopped on its
/// own: a reload is how an operator brings back a bot stopped as crashing or on a refused sign-in, once fixed) and
/// those left alone. A plain value: `ConfigurationReloader` carries it out.
package struct FleetChange: Sendable, Equatable {
    /// New bots, in the new file's order.
    package var starts: [BotConfiguration]
    /// Names of the bots no longer configured, in the old order.
    package var stops: [String]
    /// The new configuration of each changed bot, in the new file's order.
    package var restarts: [BotConfiguration]
    /// Names of the bots whose configuration is the same: they keep their sessions.
    package var unchanged: [String]

    /// Compares the bots in force with the new ones, by name; `stopped` names the bots in force that stopped on
    /// their own (not asked to), which start again.
    package init(from current: [BotConfiguration], to next: [BotConfiguration], stopped: Set<String> = []) {
        let currentByName = Dictionary(current.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let nextNames = Set(next.map(\.name))
        starts = []
        restarts = []
        unchanged = []
        for bot in next {
            switch currentByName[bot.name] {
            case nil: starts.append(bot)
            case let old? where old == bot && !stopped.contains(bot.name): unchanged.append(bot.name)
            case _?: restarts.append(bot)
            }
        }
        stops = current.map(\.name).filter { !nextNames.contains($0) }
    }

    /// Whether the reload leaves every bot as it is.
    package var isEmpty: Bool { starts.isEmpty && stops.isEmpty && restarts.isEmpty }
}
