import BotRuntime
import Foundation

/// What the `quarantine` commands print for people: a table of entries, and one line per retry or drop.
enum QuarantineText {
    /// The longest message text a table row shows.
    static let summaryWidth = 48

    /// A table with a row per entry: ID (`BOT/N`), bot, handler, the last attempt's start (UTC), attempts, and the
    /// text shortened; or a line saying there is nothing.
    static func table(_ entries: [BotQuarantineEntry], bot: String?) -> String {
        guard !entries.isEmpty else {
            return bot.map { "Nothing is quarantined for \($0)." } ?? "Nothing is quarantined."
        }
        let header = ["ID", "BOT", "HANDLER", "LAST ATTEMPT (UTC)", "ATTEMPTS", "TEXT"]
        let rows = entries.map { entry in
            [
                entry.reference.description, entry.bot, entry.handler, timestamp(entry.lastStartedAt),
                String(entry.attempts), shortened(entry.summary) + (entry.retryRequested ? "  (retry requested)" : ""),
            ]
        }
        let widths = header.indices.dropLast().map { column in
            ([header] + rows).map { $0[column].count }.max() ?? 0
        }
        let lines = ([header] + rows).map { row in
            row.enumerated().map { column, cell in
                column < widths.count ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) : cell
            }.joined(separator: "  ")
        }
        let count = entries.count
        return (lines + ["\(count) quarantined entr\(count == 1 ? "y" : "ies"). "
            + "Retry one once its handler is fixed: quarantine retry ID; forget it: quarantine drop ID."])
            .joined(separator: "\n")
    }

    static func retried(_ outcome: QuarantineRetryOutcome) -> String {
        let entry = outcome.entry
        let what = "\(entry.reference) (\(entry.handler), \"\(shortened(entry.summary))\")"
        switch outcome.runs {
        case .now:
            return "Retrying \(what) now: \(entry.bot) is running and its handler has it again."
        case .nextStart:
            return "\(what) will be retried when \(entry.bot) next starts."
        }
    }

    static func dropped(_ reference: QuarantineReference) -> String {
        "Dropped \(reference): it will not be handled."
    }

    /// `text` on one line, cut at `summaryWidth` characters with an ellipsis.
    static func shortened(_ text: String) -> String {
        let line = text.replacingOccurrences(of: "\n", with: " ")
        return line.count <= summaryWidth ? line : String(line.prefix(summaryWidth - 1)) + "…"
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(
            Date.VerbatimFormatStyle(
                format: "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits)",
                timeZone: .gmt, calendar: Calendar(identifier: .gregorian)))
    }
}
