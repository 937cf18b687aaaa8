/// A supervised bot that may start again by itself, as a new bot, once what stopped it is gone: a `BotSession`
/// refused because an earlier make of its kind was given up at its timeout and had not returned (`MakeThreads`).
/// `BotSupervisor` runs the new bot in its place, unless a reload removed it or the process shuts down first.
package protocol RestartableBot: SupervisedBot {
    /// Once the bot stopped: waits until it may start again and returns the bot to run in its place; nil at once
    /// when it stopped for good, and nil when the task is cancelled first.
    func successorOnceReadmitted() async -> (any SupervisedBot)?
}

extension BotSession: RestartableBot {}
