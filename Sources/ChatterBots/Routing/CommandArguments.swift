/// The arguments of a command, bound to the names in its usage text.
///
/// With `router.command("remind", usage: "<delay> <task...>")`, the message `/remind 1h30m "call mom"` has
/// `value("delay", as: Duration.self) == .seconds(5400)` and `value("task") == "call mom"`. A value that
/// does not parse throws a `CommandArgumentError`, which the router answers with the usage line, so handlers
/// read arguments with plain `try`:
///
/// ```swift
/// router.command("remind", usage: "<delay> <task...>", summary: "remind you of <task> after <delay>") { message in
///     let delay: Duration = try message.arguments.value("delay")
///     let task: String = try message.arguments.value("task")
///     try await message.context.jobs.schedule(Self.reminder, after: delay, payload: task)
///     try await message.reply("OK, I'll remind you.")
/// }
/// ```
public struct CommandArguments: Hashable, Sendable {
    /// Every word after the command's name, quotes removed.
    public var words: [String]
    /// Everything after the command's name, as written.
    public var text: String
    /// The usage line for error replies, e.g. `usage: /remind <delay> <task...>`.
    public var usage: String
    /// The command as typed by the user, e.g. `/remind`.
    public var command: String
    private var declared: Set<String>
    private var bound: [String: String]

    init(words: [String], text: String, command: String, usage: String, declared: Set<String>, bound: [String: String]) {
        self.words = words
        self.text = text
        self.command = command
        self.usage = usage
        self.declared = declared
        self.bound = bound
    }

    /// No arguments: what pattern, fallback and dialog handlers see.
    static let none = CommandArguments(words: [], text: "", command: "", usage: "", declared: [], bound: [:])

    /// The raw text of the argument `name`, or nil when it was optional and not given.
    public subscript(name: String) -> String? { bound[name] }

    /// The argument `name` read as `type`.
    /// - Throws: `CommandArgumentError` when it is missing or does not read as `type` (the router replies
    ///   with it); `RoutingError.undeclaredArgument` when the usage has no such name.
    public func value<Value: CommandArgumentValue>(_ name: String, as type: Value.Type = Value.self) throws -> Value {
        guard let value = try optionalValue(name, as: type) else {
            throw CommandArgumentError(.missing(parameter: name), usage: usage)
        }
        return value
    }

    /// The argument `name` read as `type`, or nil when it was optional and not given.
    /// - Throws: like `value(_:as:)`, except that a missing argument is not an error.
    public func optionalValue<Value: CommandArgumentValue>(_ name: String, as type: Value.Type = Value.self) throws -> Value? {
        guard declared.contains(name) else {
            throw RoutingError.undeclaredArgument(name: name, command: command, usage: usage)
        }
        guard let text = bound[name] else { return nil }
        guard let value = Value(commandArgument: text) else {
            throw CommandArgumentError(
                .invalid(value: text, parameter: name, expected: Value.argumentDescription), usage: usage)
        }
        return value
    }
}
