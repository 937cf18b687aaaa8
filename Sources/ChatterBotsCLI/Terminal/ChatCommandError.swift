/// A typed line the client could not read as a command; `description` says what to type instead.
public enum ChatCommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A slash command that does not exist.
    case unknownCommand(String)
    /// A command given without its argument; `expected` says what it takes.
    case missingArgument(command: String, expected: String)
    /// A command that takes a number (from 1) was given something else.
    case invalidNumber(command: String, String)

    public var description: String {
        switch self {
        case .unknownCommand(let name):
            "unknown command \(name); type /help for the commands (start a line with // to send it as text)"
        case .missingArgument(let command, let expected):
            "\(command) needs \(expected)"
        case .invalidNumber(let command, let text):
            "\(command) takes a number from 1, not \"\(text)\""
        }
    }
}
