/// A supervised bot that reports each change of its state (`BotSession`): the supervisor counts it from its
/// reports instead of reading its status on every probe. A bot that is not one is asked for its status on each
/// `/healthz` and `/readyz` instead.
package protocol StateReportingBot: SupervisedBot {
    /// From now on, reports to `reporter` each change of the state, connection or first going live of the bot,
    /// starting with where it is now; a reporter given earlier is no longer told.
    func reportStates(to reporter: BotStateReporter) async
}
