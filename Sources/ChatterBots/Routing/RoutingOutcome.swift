/// How the router disposed of a message: which route took it, or why none did. Middleware reads it after
/// `next` (the logging middleware logs it) and tests assert on it.
public enum RoutingOutcome: Hashable, Sendable, CustomStringConvertible {
    /// The handler of the command with this name ran.
    case command(String)
    /// A command with this name matched, but its arguments did not fit; the usage was replied.
    case invalidArguments(String)
    /// The handler of the pattern with this name ran.
    case pattern(String)
    /// The sender's active dialog with this name took the message (an answer, a re-ask, or a cancel).
    case dialog(String)
    /// The automatic help replied.
    case help
    /// The text looked like a command nobody registered (given as typed); the router said so.
    case unknownCommand(String)
    /// The fallback handler ran.
    case fallback
    /// Nothing matched and there is no fallback, or the message was a system message.
    case unhandled
    /// A middleware ended the chain, for this reason (e.g. "rate limited").
    case stopped(String)

    /// A compact form for logs: `command:remind`, `pattern:greeting`, `fallback`.
    public var description: String {
        switch self {
        case .command(let name): "command:\(name)"
        case .invalidArguments(let name): "invalid-arguments:\(name)"
        case .pattern(let name): "pattern:\(name)"
        case .dialog(let name): "dialog:\(name)"
        case .help: "help"
        case .unknownCommand(let command): "unknown-command:\(command)"
        case .fallback: "fallback"
        case .unhandled: "unhandled"
        case .stopped(let reason): "stopped:\(reason)"
        }
    }
}
