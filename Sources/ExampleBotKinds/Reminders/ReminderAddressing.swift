import ChatterBots

/// The rule by which the reminder bot tells, in a group, which messages are meant for it.
///
/// A message is addressed to the bot when it starts with `@name` (one of the bot's names, ignoring case,
/// followed by a space, `,`, `:` or nothing) or with "remind me". In a direct conversation every message is
/// meant for the bot. In a group:
/// - an addressed message is answered like one in a direct conversation: a command is carried out, a mistake
///   is explained, anything else gets the short usage text;
/// - a message that is not addressed is acted on only when it is exactly one of the bot's commands ("list
///   reminders", "cancel 2", "cancel all", "timezone Europe/Lisbon", "help"); anything else, including
///   near-commands such as "cancel the meeting", is ignored silently, since people in a group talk to each other.
struct ReminderAddressing: Sendable {
    /// The names the bot answers to as `@name`, in lower case.
    let names: Set<String>

    init(names: some Sequence<String>) {
        self.names = Set(names.map { $0.lowercased() })
    }

    /// Whether `text` is addressed to the bot, and the command in it (without the `@name`).
    func read(_ text: String) -> (isAddressed: Bool, command: String) {
        let trimmed = text.drop(while: \.isWhitespace)
        if trimmed.first == "@" {
            let afterAt = trimmed.dropFirst()
            let name = afterAt.prefix { !($0.isWhitespace || $0 == "," || $0 == ":") }
            if names.contains(name.lowercased()) {
                let rest = afterAt.dropFirst(name.count).drop { $0.isWhitespace || $0 == "," || $0 == ":" }
                return (true, String(rest))
            }
        }
        let words = trimmed.split(whereSeparator: \.isWhitespace).prefix(2).map { $0.lowercased() }
        return (words == ["remind", "me"], String(trimmed))
    }
}
