/// A command's arguments do not fit its usage. The router answers the sender with `description` (what is
/// wrong, then the usage line) instead of failing the handler, so a typo costs the user one more try.
///
/// Thrown by `CommandArguments.value(_:as:)` for a value that does not parse, and made by the router
/// itself when arguments are missing or left over.
public struct CommandArgumentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong with the arguments.
    public enum Reason: Hashable, Sendable {
        /// A required argument was not given.
        case missing(parameter: String)
        /// More was written than the usage takes.
        case unexpected(String)
        /// `value` does not read as `expected` (for example "a whole number").
        case invalid(value: String, parameter: String, expected: String)
    }

    /// What is wrong with the arguments.
    public var reason: Reason
    /// The usage line, e.g. `usage: /remind <delay> <task...>`.
    public var usage: String

    /// An error for `reason`, answered with `usage`.
    public init(_ reason: Reason, usage: String) {
        self.reason = reason
        self.usage = usage
    }

    /// What to tell the sender: the problem, then the usage on its own line.
    public var description: String {
        let problem: String
        switch reason {
        case .missing(let parameter): problem = "Missing <\(parameter)>."
        case .unexpected(let text): problem = "I did not expect “\(text)”."
        case .invalid(let value, let parameter, let expected): problem = "“\(value)” is not \(expected) (for <\(parameter)>)."
        }
        return problem + "\n" + usage
    }
}
