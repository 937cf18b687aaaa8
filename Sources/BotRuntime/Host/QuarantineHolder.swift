/// A supervised bot whose quarantine the control routes can read and change: `BotSession`. A `SupervisedBot`
/// that is not one keeps no quarantine (its list is empty).
package protocol QuarantineHolder: SupervisedBot {
    /// The bot's quarantined work, oldest first.
    func quarantineEntries() async throws(BotStoreError) -> [QuarantineEntry]
    /// Hands the entry `id` to its handler again: now when the bot runs, else at its next start; nil when there is
    /// no such entry.
    func retryQuarantined(_ id: Int64) async throws(BotStoreError) -> (entry: QuarantineEntry, runsNow: Bool)?
    /// Forgets the entry `id`; returns whether there was one.
    func dropQuarantined(_ id: Int64) async throws(BotStoreError) -> Bool
}

extension BotSession: QuarantineHolder {}
