import ChatterBots
import CInFlight
import Foundation

/// What a `run` does with its data directory's `InFlightTable` before any bot starts: each piece of work the
/// previous process was running when it died gets an attempt in its bot's store, then the table is cleared, and
/// the crash report is installed for this process.
package enum CrashRecovery {
    /// Opens the table of `tableDirectory` (by default `dataDirectory`; a shard's own, see `ShardLayout`) and
    /// records its leftovers for `bots` (their names) in their stores in `dataDirectory`.
    ///
    /// - Throws: `InFlightTableError` when the table cannot be used (another process has it).
    package static func prepare(
        dataDirectory: URL, tableDirectory: URL? = nil, bots: [String], log: LogSink,
        clock: any ChatterClock = SystemClock()
    ) async throws(InFlightTableError) -> InFlightTable {
        let tableDirectory = tableDirectory ?? dataDirectory
        try? FileManager.default.createDirectory(
            at: tableDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let table = try InFlightTable(directory: tableDirectory)
        let known = Set(bots)
        for (bot, records) in Dictionary(grouping: table.leftovers, by: \.bot).sorted(by: { $0.key < $1.key }) {
            for record in records {
                log.log(.error, "the last run died while \(record.handler) ran: it counts as one attempt", bot: bot,
                    trace: record.trace, ["work": record.key, "summary": record.summary])
            }
            guard known.contains(bot) else {
                log.log(.warning, "the bot is not configured here (or runs in another shard): its crash suspects are not recorded",
                    bot: bot)
                continue
            }
            let path = dataDirectory.appendingPathComponent("\(bot).sqlite").path
            do {
                let store = try await BotStore.open(path: path, clock: clock)
                do {
                    try await store.recordCrashedWork(records)
                } catch {
                    await store.close()
                    throw error
                }
                await store.close()
            } catch {
                log.log(.error, "could not record the work running when the last run died: \(error)", bot: bot)
            }
        }
        table.forgetLeftovers()
        if !table.installCrashReport() {
            log.log(.warning, "a crash will not name this run's work: the process's crash report already reads "
                + "\(CHATTER_IN_FLIGHT_MAX_TABLES) in-flight tables, the most it can (one for each run in the process)")
        }
        return table
    }
}
