/// What a supervised bot calls as its state changes (`StateReportingBot`): the supervisor's `/healthz` and `/readyz`
/// then count it without asking it on every probe. Calls after the bot left the supervisor are ignored.
package struct BotStateReporter: Sendable {
    let board: FleetStateBoard
    let id: Int

    /// The bot is now in `state`, `connected` or not, and it has been live in this run (`firstLiveAt` set) or not.
    package func report(_ state: BotStatus.State, connected: Bool, hasBeenLive: Bool) {
        board.report(id, state: state, connected: connected, hasBeenLive: hasBeenLive)
    }
}
