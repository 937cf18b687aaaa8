@testable import BotRuntime
import ChatterBots
import Foundation

/// Writes quarantined entries into a bot's store file, as a run that crashed on them would have left them.
package enum QuarantineSeed {
    /// When the seeded entries' last attempts started, and when they were quarantined.
    package static let lastStartedAt = Date(timeIntervalSince1970: 1_780_000_000)
    package static let quarantinedAt = Date(timeIntervalSince1970: 1_780_000_060)

    /// Quarantines one `onMessage` entry per text in the store of `bot` in `directory` (created when missing);
    /// their ids are 1, 2, … in order. The work is none, so a retry of a running bot takes the entry out at once.
    package static func seed(bot: String, in directory: URL, texts: [String], attempts: Int = 2) async throws {
        let store = try await BotStore.open(
            path: directory.appendingPathComponent("\(bot).sqlite").path, clock: ManualClock(now: quarantinedAt))
        do {
            try await store.record(texts.enumerated().map { index, text in
                .quarantine(
                    CrashSuspect(
                        key: "message:M_\(bot)_\(index + 1)", handler: "onMessage", trace: "trace-\(bot)-\(index + 1)",
                        summary: text, attempts: attempts, lastStartedAt: lastStartedAt),
                    work: nil)
            })
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    /// The quarantined entries of `bot`'s store in `directory`, read from the file.
    package static func entries(of bot: String, in directory: URL) async throws -> [QuarantineEntry] {
        let store = try await BotStore.open(path: directory.appendingPathComponent("\(bot).sqlite").path)
        let entries: [QuarantineEntry]
        do {
            entries = try await store.quarantined()
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        return entries
    }
}
