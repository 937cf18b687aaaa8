import Foundation
import ChatterBots
import Testing
@testable import ExampleBotKinds

/// Zones, instants and parsing shortcuts shared by the reminder tests. Expected instants are written as UTC
/// text and read with Foundation's ISO 8601 parser, independently of the code under test.
enum Fixture {
    static let parser = ReminderCommandParser()

    /// Sunday 30 November 2025, 14:30:00 UTC: 14:30 in Lisbon, 09:30 in New York, 20:00 in Kolkata.
    static let sunday = instant("2025-11-30T14:30:00Z")

    static func zone(_ identifier: String) -> TimeZone {
        guard let zone = TimeZone(identifier: identifier) else {
            Issue.record("Foundation does not know the zone \(identifier)")
            return TimeZone(secondsFromGMT: 0) ?? .current
        }
        return zone
    }

    static var utc: TimeZone { zone("UTC") }
    static var lisbon: TimeZone { zone("Europe/Lisbon") }
    static var newYork: TimeZone { zone("America/New_York") }
    static var kolkata: TimeZone { zone("Asia/Kolkata") }

    /// The instant written as "2025-11-30T14:30:00Z" or with an offset, "2025-11-30T09:30:00-05:00".
    static func instant(_ text: String) -> Date {
        guard let date = ISO8601DateFormatter().date(from: text) else {
            Issue.record("Not an ISO 8601 instant: \(text)")
            return .distantPast
        }
        return date
    }

    /// The local time hour:minute, recording an issue for an impossible one.
    static func time(_ hour: Int, _ minute: Int = 0) -> TimeOfDay {
        guard let time = try? TimeOfDay(hour: hour, minute: minute) else {
            Issue.record("No such time \(hour):\(minute)")
            return .midnight
        }
        return time
    }

    /// The date year-month-day, recording an issue for an impossible one.
    static func date(_ year: Int, _ month: Int, _ day: Int) -> LocalDate {
        guard let date = LocalDate(year: year, month: month, day: day) else {
            Issue.record("No such date \(year)-\(month)-\(day)")
            return LocalDate(daysSinceEpoch: 0)
        }
        return date
    }

    /// The reminder request in `message`, failing the test when the message is anything else.
    static func request(_ message: String) throws -> ReminderRequest {
        let command = try parser.parse(message)
        guard case .remind(let request) = command else {
            Issue.record("'\(message)' parsed as \(command), not a reminder")
            throw CommandMismatch()
        }
        return request
    }

    /// The reminder `message` sets when said at `now` in `zone`.
    static func reminder(_ message: String, now: Date = sunday, in zone: TimeZone) throws -> Reminder {
        try request(message).reminder(now: now, timeZone: zone)
    }

    /// The error `body` throws, or nil (recording an issue) when it throws none.
    static func error<T>(_ body: () throws(ReminderCommandError) -> T) -> ReminderCommandError? {
        do {
            let value = try body()
            Issue.record("Expected an error, got \(value)")
            return nil
        } catch {
            return error
        }
    }

    struct CommandMismatch: Error {}
}
