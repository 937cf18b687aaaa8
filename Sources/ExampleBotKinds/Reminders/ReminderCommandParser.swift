import ChatterBots

/// Turns a chat message to the reminder bot into a `ReminderCommand`: pure, no clock, no time zone, no locale.
///
/// Case-insensitive, tolerant of extra spaces and a trailing period. The task is kept verbatim.
/// What it understands (English):
/// - `remind me <when> to <task>`, `remind me to <task> <when>`, or `remind me <when> <task>`:
///   - `in 10 minutes`, `in 1 minute`, `in a minute`, `in an hour`, `in 2 hours`, `in 1 hour and 30 minutes`,
///     `in half an hour`, `in an hour and a half`, `in 1.5 hours`, `in 90 min`, `in 2h`, `in 1h30`, `in 3 days`,
///     `in 2 weeks`, `in 30 seconds`. Days and weeks keep the wall-clock time; smaller units are elapsed time.
///   - `at 18:30`, `at 9` (09:00; hours alone are 24-hour), `at 9.30`, `at 18h30`, `at 6pm`, `at 6:30 pm`,
///     `at 6 p.m.`, `at 9 o'clock`, `at noon`, `at midnight`: today if still ahead, otherwise tomorrow.
///   - `today at 18:30`, `tomorrow` (at `defaultTime`, 09:00), `tomorrow at 9`, `at 9 tomorrow`,
///     `on friday` / `friday` / `on fri` (the coming Friday, today if the time is still ahead),
///     `next friday` (never today), `on 2026-12-24`, `on 24 December [2026]`, `on december 24th [2026]`
///     (without a year: the next such day), each optionally with a time.
///   - `every day at 9:00`, `daily at 9`, `every monday at 10:00`, `every monday and friday`, `on mondays`,
///     `every weekday` (Monday to Friday), `every weekend`, `every 2 hours`, `every 30 minutes`, `every hour`,
///     `hourly`; without a time, daily and weekly reminders fire at `defaultTime`.
///   A timing written after the task is found from the end ("remind me to meet Ann at the station at 18:30"
///   keeps "meet Ann at the station").
/// - `list`, `list reminders`, `reminders`, `my reminders`, `show reminders`
/// - `cancel 2`, `cancel reminder 2`, `cancel #2`, `delete 2`, `remove 2`; `cancel all`
/// - `timezone Europe/Lisbon`, `time zone Lisbon`, `tz America/New_York`, `set timezone …`
/// - `help`
public struct ReminderCommandParser: Sendable {
    /// The time used when a day or repetition is given without one ("tomorrow", "every monday").
    public let defaultTime: TimeOfDay
    /// The longest task accepted, in characters, so confirmations stay within a chat message.
    public let maximumTaskLength: Int

    /// 09:00, the time "tomorrow" or "every monday" means unless a parser is made with another.
    public static let standardDefaultTime: TimeOfDay = {
        do { return try TimeOfDay(hour: 9, minute: 0) } catch { return .midnight }  // 9:00 is in range: never thrown
    }()

    /// The short text the bot replies with to a message it does not understand.
    public static let usage = """
        I didn't get that. Try 'remind me in 10 minutes to stretch', 'remind me at 18:30 to call mom', \
        'list reminders', 'cancel 2', 'timezone Europe/Lisbon' or 'help'.
        """

    /// The full explanation the bot replies with to "help".
    public static let help = """
        I send you reminders. Say:
        • remind me in 10 minutes to stretch (also: in 2 hours, in 1 hour and 30 minutes, in 3 days)
        • remind me at 18:30 to call mom (also 6:30pm; today if still ahead, otherwise tomorrow)
        • remind me tomorrow at 9 to pay rent (tomorrow alone means 09:00)
        • remind me on friday at 17:00 to … / on 2026-12-24 at 8:00 to …
        • remind me every day at 9:00 to stand up / every monday at 10:00 / every weekday at 8:30 / every 2 hours
        • list reminders — shows them numbered
        • cancel 2 — cancels reminder 2 of the list (cancel all cancels every one)
        • timezone Europe/Lisbon — the zone your times are in
        """

    /// - Parameters:
    ///   - defaultTime: the time for a day or repetition given without one; 09:00 unless said otherwise.
    ///   - maximumTaskLength: the longest task accepted, in characters.
    public init(defaultTime: TimeOfDay = ReminderCommandParser.standardDefaultTime, maximumTaskLength: Int = 1_000) {
        self.defaultTime = defaultTime
        self.maximumTaskLength = maximumTaskLength
    }

    /// The command `message` asks for; `.unrecognized` when it asks for none of them.
    ///
    /// - Throws: `ReminderCommandError` when the message is a command but part of it cannot be understood;
    ///   its `message` says which part ("I couldn't read the time '25:99'…").
    public func parse(_ message: String) throws(ReminderCommandError) -> ReminderCommand {
        let tokens = MessageToken.split(ReminderCommandParser.trimmingTrailingPeriods(message))
        let words = tokens.map(\.word)
        guard let first = words.first.map({ $0.hasPrefix("/") ? String($0.dropFirst()) : $0 }) else {
            return .unrecognized(usage: ReminderCommandParser.usage)
        }
        let rest = Array(words.dropFirst())
        switch first {
        case "help", "?", "commands":
            if rest.isEmpty { return .help }
        case "list", "reminders", "show", "my":
            if ReminderCommandParser.listPhrases.contains([first] + rest) { return .list }
        case "cancel", "delete", "remove":
            return try cancelCommand(tokens.dropFirst())
        case "timezone", "tz", "time", "set":
            if let command = try timeZoneCommand(words: [first] + rest, tokens: tokens) { return command }
        case "remind":
            if rest.first == "me" { return try remindCommand(tokens, from: 2) }
        default:
            break
        }
        return .unrecognized(usage: ReminderCommandParser.usage)
    }

    private static let listPhrases: Set<[String]> = [
        ["list"], ["list", "reminders"], ["list", "my", "reminders"], ["reminders"], ["my", "reminders"],
        ["show", "reminders"], ["show", "my", "reminders"], ["list", "all"], ["list", "all", "reminders"],
    ]

    private static func trimmingTrailingPeriods(_ message: String) -> String {
        var text = Substring(message)
        while let last = text.last, last.isWhitespace || last == "." || last == "…" {
            text = text.dropLast()
        }
        return String(text)
    }

    // MARK: Cancel and time zone

    private func cancelCommand(_ tokens: ArraySlice<MessageToken>) throws(ReminderCommandError) -> ReminderCommand {
        var rest = tokens
        if let first = rest.first?.word, ["reminder", "number", "no", "#"].contains(first) { rest = rest.dropFirst() }
        let words = rest.map(\.word)
        if words == ["all"] || words == ["all", "reminders"] || words == ["all", "my", "reminders"]
            || words == ["everything"] {
            return .cancelAll
        }
        let written = MessageToken.text(of: rest)
        guard words.count == 1, let word = words.first else { throw .unreadableReminderNumber(written) }
        let digits = word.hasPrefix("#") ? word.dropFirst() : Substring(word)
        guard (1...9).contains(digits.count), digits.allSatisfy(\.isASCIIDigit), let number = Int(digits), number >= 1 else {
            throw .unreadableReminderNumber(written)
        }
        return .cancel(number: number)
    }

    private func timeZoneCommand(words: [String], tokens: [MessageToken]) throws(ReminderCommandError) -> ReminderCommand? {
        var index = 0
        if words.first == "set" { index += 1 }
        if index < words.count, ["timezone", "tz"].contains(words[index]) {
            index += 1
        } else if index + 1 < words.count, words[index] == "time", words[index + 1] == "zone" {
            index += 2
        } else {
            return nil
        }
        if index < words.count, ["to", "is", "="].contains(words[index]) { index += 1 }
        let name = MessageToken.text(of: tokens[index...])
        guard let zone = TimeZoneDirectory.zone(named: name) else { throw .unknownTimeZone(name) }
        return .setTimeZone(zone)
    }

    // MARK: Remind

    /// "remind me" and what follows from `start`: when-first ("in 10 minutes to stretch") or task-first
    /// ("to stretch in 10 minutes").
    private func remindCommand(_ tokens: [MessageToken], from start: Int) throws(ReminderCommandError) -> ReminderCommand {
        guard start < tokens.count else { throw .missingTiming }
        if tokens[start].word == "to" {
            return try taskFirst(tokens, from: start + 1)
        }
        guard TimingGrammar.startsComponent(tokens, at: start) else { throw .missingTiming }
        let timing: ReminderTiming
        let taskStart: Int
        do {
            if let to = tokens[start...].firstIndex(where: { $0.word == "to" }) {
                timing = try TimingGrammar.parse(tokens, in: start..<to, defaultTime: defaultTime, wholeRange: true).timing
                taskStart = to + 1
            } else {
                let parsed = try TimingGrammar.parse(tokens, in: start..<tokens.count, defaultTime: defaultTime, wholeRange: false)
                timing = parsed.timing
                taskStart = parsed.end
            }
        } catch {
            throw error.error
        }
        return .remind(ReminderRequest(task: try task(tokens[taskStart...]), timing: timing))
    }

    /// "to <task> <when>": the timing is the earliest point from which the rest of the message reads as one.
    private func taskFirst(_ tokens: [MessageToken], from start: Int) throws(ReminderCommandError) -> ReminderCommand {
        guard start < tokens.count else { throw .missingTask }
        var lastFailure: ReminderCommandError?
        for split in start..<tokens.count where TimingGrammar.startsComponent(tokens, at: split) {
            let timing: ReminderTiming
            do {
                timing = try TimingGrammar.parse(
                    tokens, in: split..<tokens.count, defaultTime: defaultTime, wholeRange: true).timing
            } catch {
                if error.isFirm { throw error.error }
                lastFailure = error.error
                continue
            }
            return .remind(ReminderRequest(task: try task(tokens[start..<split]), timing: timing))
        }
        throw lastFailure ?? .missingTiming
    }

    private func task(_ tokens: ArraySlice<MessageToken>) throws(ReminderCommandError) -> String {
        let task = MessageToken.text(of: tokens)
        guard !task.isEmpty else { throw .missingTask }
        guard task.count <= maximumTaskLength else { throw .taskTooLong(limit: maximumTaskLength) }
        return task
    }
}
