extension BotSupervisor {
    /// The messages per minute over the last hour of the bots named `names` (for the console's charts).
    package func messagesPerMinute(of names: Set<String>) async -> [String: [Int]] {
        var result: [String: [Int]] = [:]
        for (name, bot) in await namedBots() where names.contains(name) {
            result[name] = await bot.messagesPerMinute
        }
        return result
    }
}
