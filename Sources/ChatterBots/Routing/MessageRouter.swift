import Foundation

/// Routes a bot's incoming messages to handlers: commands (`/remind 10m stretch`, `list reminders`), text
/// patterns, keywords, multi-step dialogs and a fallback, with middleware around them. It is a `Bot`, so it can be
/// the bot itself, or sit inside one that also handles other events.
///
/// ```swift
/// let reminder = JobKind<String>("reminder")
/// let router = MessageRouter { router in
///     router.use(LoggingMiddleware())
///     router.use(RateLimitMiddleware(messages: 10, per: .seconds(60)))
///
///     router.command("remind", usage: "<delay> <task...>", summary: "remind you of <task> after <delay>") { message in
///         let delay: Duration = try message.arguments.value("delay")
///         try await message.context.jobs.schedule(reminder, after: delay, payload: try message.arguments.value("task", as: String.self))
///         try await message.reply("OK.")
///     }
///     router.command("list reminders", prefixed: false, summary: "show what I will remind you of") { message in
///         try await message.reply("\(try await message.context.jobs.scheduled(reminder).count) reminders")
///     }
///     router.pattern(/\b(hi|hello)\b/, ignoringCase: true) { message, _ in
///         try await message.reply("Hello! Send /help to see what I can do.")
///     }
///     router.fallback { message in try await message.reply("Sorry, I did not get that.") }
/// }
/// ```
///
/// How a message is routed, first match wins:
/// 1. the middleware, in the order added; any of them may stop here;
/// 2. the sender's active dialog in the conversation (see `Dialog`), inside the middleware of the included
///    router that registered it, if any;
/// 3. the automatic help (`/help`, `/help remind`), unless a registered command has its name;
/// 4. commands, patterns and keywords, in registration order: register `reminders clear` before `reminders`. An
///    included router's routes take the place of its `include(_:)` call, in their own order, and once one of
///    them matches, that router's middleware runs around it (around its handler, or around the usage reply
///    when its arguments do not fit), inside this router's middleware;
/// 5. a reply that the command does not exist, for text that starts with the prefix;
/// 6. the fallback.
///
/// System messages ("Ana joined") are not routed at all, not even through the middleware.
///
/// Command names and plain words match without case. A prefixed command whose arguments do not fit its
/// usage (or whose handler throws `CommandArgumentError`) is answered with the problem and the usage line;
/// a plain-word command whose arguments do not fit does not match, since such text is likely just chat.
///
/// Registration is with mutating methods rather than a result builder: handlers are ordinary throwing
/// async closures, which keeps type checking fast and compiler errors pointed at the line at fault.
/// The router is a value: build it once (e.g. in the bot's `init`) and share it; it holds no mutable state.
public struct MessageRouter: Bot {
    /// What starts a command: `/` for `/remind`. Commands registered with `prefixed: false` need none.
    public var commandPrefix: String
    /// The name of the automatic help command (`help` makes `/help`); nil for none.
    public var helpCommand: String?
    /// The first line of the help list.
    public var helpIntroduction: String
    /// The reply to text that starts with the prefix but names no command, given the word typed and the
    /// help command (e.g. `/help`, nil when there is none); nil sends such text on to the fallback.
    public var unknownCommandReply: (@Sendable (_ command: String, _ helpCommand: String?) -> String)?

    private enum Route: Sendable {
        case command(CommandRoute)
        case pattern(PatternRoute)
    }

    /// A route with the middleware of the included routers it came from, outermost first (empty for a route
    /// registered on this router).
    private struct ScopedRoute: Sendable {
        var route: Route
        var middleware: [any MessageMiddleware]
    }

    private var routes: [ScopedRoute] = []
    private var middleware: [any MessageMiddleware] = []
    private var dialogs: [DialogRunner] = []
    private var fallbackHandler: (@Sendable (RoutedMessage) async throws -> Void)?
    private var patternCount = 0

    /// - Parameter configure: registers the routes, middleware and dialogs (or call the same methods later
    ///   on a `var`).
    public init(
        commandPrefix: String = "/", helpCommand: String? = "help", helpIntroduction: String = "Commands:",
        configure: (inout MessageRouter) throws -> Void = { _ in }
    ) rethrows {
        self.commandPrefix = commandPrefix
        self.helpCommand = helpCommand
        self.helpIntroduction = helpIntroduction
        self.unknownCommandReply = Self.defaultUnknownCommandReply
        try configure(&self)
    }

    /// "I don't know /foo. Send /help to see what I can do."
    public static let defaultUnknownCommandReply: @Sendable (String, String?) -> String = { command, help in
        help.map { "I don't know \(command). Send \($0) to see what I can do." } ?? "I don't know \(command)."
    }

    // MARK: Registering

    /// Adds a middleware around the handling of every message; the first added runs first. On a router that
    /// another includes, it runs only around this router's own routes and dialogs (see `include(_:)`).
    public mutating func use(_ middleware: some MessageMiddleware) {
        self.middleware.append(middleware)
    }

    /// Adds a middleware written as a closure: call `next` to go on, or return an outcome to stop.
    ///
    /// ```swift
    /// router.use { message, next in
    ///     guard !message.text.isEmpty else { return .stopped("no text") }
    ///     return try await next(message)
    /// }
    /// ```
    public mutating func use(
        _ middleware: @escaping @Sendable (RoutedMessage, (RoutedMessage) async throws -> RoutingOutcome) async throws -> RoutingOutcome
    ) {
        self.middleware.append(ClosureMiddleware(body: middleware))
    }

    /// Adds a command.
    /// - Parameters:
    ///   - name: one or more words, e.g. `remind` or `list reminders` (a leading prefix is ignored).
    ///   - prefixed: whether it is typed with `commandPrefix` (`/remind`) or as plain words (`list reminders`).
    ///   - usage: its parameters: `<name>` required, `[name]` optional, a last `<name...>` takes the rest of
    ///     the text. Empty takes no arguments. Read them with `message.arguments.value(_:as:)`.
    ///   - summary: one line for the help list.
    public mutating func command(
        _ name: String, prefixed: Bool = true, usage: String = "", summary: String = "",
        _ handler: @escaping @Sendable (RoutedMessage) async throws -> Void
    ) {
        let command = CommandRoute(
            name: name, prefix: commandPrefix, isPrefixed: prefixed, usage: usage, summary: summary, handler: handler)
        requireUnregistered(command)
        routes.append(ScopedRoute(route: .command(command), middleware: []))
    }

    /// Adds a text pattern, matched anywhere in the text (anchor it with `^…$` for the whole text). The
    /// handler gets the match's typed output, and `message.captures` holds the groups by number and name.
    ///
    /// ```swift
    /// router.pattern(/remind me in (\d+) min(?:ute)?s? to (?<task>.+)/, ignoringCase: true) { message, match in
    ///     try await message.reply("In \(match.1) minutes: \(match.task).")
    /// }
    /// ```
    /// - Parameters:
    ///   - name: for logs and `RoutingOutcome.pattern`; by default `pattern-1`, `pattern-2`, … in order.
    ///   - ignoringCase: match without case (a regex that already ignores case keeps doing so).
    public mutating func pattern<Output: Sendable>(
        _ regex: sending Regex<Output>, name: String? = nil, ignoringCase: Bool = false,
        _ handler: @escaping @Sendable (RoutedMessage, Output) async throws -> Void
    ) {
        let matcher = RegexMatcher(ignoringCase ? regex.ignoresCase() : regex)
        addPattern(name: name) { text in
            guard let (output, captures) = matcher.firstMatch(in: text) else { return nil }
            return (captures, { message in try await handler(message, output) })
        }
    }

    /// Adds a text pattern given as an `NSRegularExpression` (e.g. built from configuration at run time);
    /// the handler reads the groups from `message.captures`.
    public mutating func pattern(
        _ expression: NSRegularExpression, name: String? = nil, ignoringCase: Bool = false,
        _ handler: @escaping @Sendable (RoutedMessage) async throws -> Void
    ) {
        var expression = expression
        if ignoringCase, !expression.options.contains(.caseInsensitive),
            let caseless = try? NSRegularExpression(pattern: expression.pattern, options: expression.options.union(.caseInsensitive))
        {
            expression = caseless
        }
        let names = expression.captureGroupNames
        addPattern(name: name) { [expression] text in
            guard let result = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { return nil }
            return (PatternCaptures(result, in: text, names: names), handler)
        }
    }

    /// Adds a route taken when the text contains any of `keywords` as whole words, folding case and diacritics
    /// (see `KeywordMatcher`): `hello` matches "Héllo!" but not "Othello". It is a pattern for naming and
    /// outcomes; `message.captures.match` is the keyword that matched, as given here.
    ///
    /// ```swift
    /// router.keywords(["opening hours", "open today"], name: "hours") { message in
    ///     try await message.reply("We're open 9–17.")
    /// }
    /// ```
    /// - Parameters:
    ///   - keywords: words or phrases, tried in order.
    ///   - name: for logs and `RoutingOutcome.pattern`; by default `pattern-<n>`, counted with the patterns.
    public mutating func keywords(
        _ keywords: [String], name: String? = nil, _ handler: @escaping @Sendable (RoutedMessage) async throws -> Void
    ) {
        let matcher = KeywordMatcher(keywords)
        addPattern(name: name) { text in
            guard let keyword = matcher.firstMatch(in: text) else { return nil }
            return (PatternCaptures(groups: [keyword]), handler)
        }
    }

    private mutating func addPattern(
        name: String?, match: @escaping @Sendable (String) -> (PatternCaptures, PatternRoute.BoundHandler)?
    ) {
        patternCount += 1
        routes.append(ScopedRoute(route: .pattern(PatternRoute(name: name ?? "pattern-\(patternCount)", match: match)), middleware: []))
    }

    /// Registers a dialog so that `startDialog(_:)` can start it and the sender's answers reach it.
    /// A later registration with the same name replaces the earlier one.
    public mutating func dialog<Values>(_ dialog: Dialog<Values>) {
        dialogs.removeAll { $0.name == dialog.name }
        dialogs.append(dialog.runner)
    }

    /// Sets the handler for text that nothing else took (replacing any earlier fallback).
    public mutating func fallback(_ handler: @escaping @Sendable (RoutedMessage) async throws -> Void) {
        fallbackHandler = handler
    }

    /// Adds the commands, patterns and dialogs of `router` here, as if registered at this point, each guarded
    /// by `router`'s own middleware: it runs only for them, inside this router's middleware (which runs for
    /// every message). Routers nest: `router` may include others.
    ///
    /// ```swift
    /// let admin = MessageRouter { admin in
    ///     admin.use(AccessControlMiddleware(allowing: [.username("ana")]))
    ///     admin.command("pause", summary: "stop answering for a while") { try await $0.reply("Paused.") }
    /// }
    /// let router = MessageRouter { router in
    ///     router.use(LoggingMiddleware())                // every message
    ///     router.command("ping") { try await $0.reply("pong") }
    ///     router.include(admin)                          // only ana may /pause; anyone may /ping
    ///     router.fallback { try await $0.reply("Send /help to see what I can do.") }
    /// }
    /// ```
    ///
    /// `router` is copied as it is now; changing it afterwards changes nothing here. The automatic help lists
    /// its commands with this router's, in routing order. Only this router's help, unknown-command reply and
    /// fallback answer: an included router's own are not used.
    ///
    /// - Precondition: `router` has this router's `commandPrefix` and no fallback, and none of its commands or
    ///   dialogs has the name of one already here. These are mistakes in the bot's code, so they stop the
    ///   program at start-up, saying which name.
    public mutating func include(_ router: MessageRouter) {
        precondition(
            router.commandPrefix == commandPrefix,
            "An included router has the command prefix “\(router.commandPrefix)”, but the router including it has “\(commandPrefix)”: build both with the same commandPrefix.")
        precondition(
            router.fallbackHandler == nil,
            "An included router has a fallback, which would never run: set the fallback on the router that includes it.")
        for scoped in router.routes {
            if case .command(let command) = scoped.route { requireUnregistered(command) }
            routes.append(ScopedRoute(route: scoped.route, middleware: router.middleware + scoped.middleware))
        }
        for var dialog in router.dialogs {
            precondition(
                !dialogs.contains { $0.name == dialog.name },
                "The dialog “\(dialog.name)” is registered twice (in an included router and in the router including it, or in two included routers): give each dialog its own name.")
            dialog.middleware = router.middleware + dialog.middleware
            dialogs.append(dialog)
        }
    }

    /// Stops the program when a command with the same words and prefix is already registered, here or in an
    /// included router: the second could never run, so it is a mistake in the bot's code.
    private func requireUnregistered(_ command: CommandRoute) {
        precondition(
            !commands.contains { $0.isPrefixed == command.isPrefixed && $0.words == command.words },
            "The command “\(command.invocation(prefix: commandPrefix))” is registered twice: each command name may be registered once, across included routers too.")
    }

    // MARK: Routing

    /// Routes the message as `route(_:context:)` does (in the order listed on the type), for the runtime to call.
    public func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        _ = try await route(message, context: context)
    }

    /// Routes `message` through the middleware to its handler and says how it was disposed of. Errors of
    /// handlers propagate, except `CommandArgumentError`, which is answered with the usage.
    @discardableResult
    public func route(_ message: IncomingMessage, context: any BotContext) async throws -> RoutingOutcome {
        // "Ana joined" must not be rate limited, refused or answered by the fallback.
        guard message.kind != .system else { return .unhandled }
        let routed = RoutedMessage(message, context: context, registeredDialogs: Set(dialogs.map(\.name)))
        return try await Self.run(routed, through: middleware[...]) { message in try await dispatch(message) }
    }

    /// Runs `body` inside `middleware`, the first outermost; any of them may stop before `body`.
    private static func run(
        _ message: RoutedMessage, through middleware: ArraySlice<any MessageMiddleware>,
        _ body: (RoutedMessage) async throws -> RoutingOutcome
    ) async throws -> RoutingOutcome {
        guard let first = middleware.first else { return try await body(message) }
        return try await first.handle(message) { next in
            try await run(next, through: middleware.dropFirst(), body)
        }
    }

    private func dispatch(_ message: RoutedMessage) async throws -> RoutingOutcome {
        let text = message.text
        let tokens = CommandTokenizer.tokens(in: text)
        if !dialogs.isEmpty, let outcome = try await continueDialog(message, tokens: tokens) {
            return outcome
        }
        if let help = helpRoute, let length = help.nameLength(in: tokens, prefix: commandPrefix) {
            let topic = CommandSignature.rest(of: tokens[length...], in: text)
            try await message.reply(topic.isEmpty ? helpList() : helpEntry(for: topic))
            return .help
        }
        for scoped in routes {
            switch scoped.route {
            case .command(let command):
                guard let length = command.nameLength(in: tokens, prefix: commandPrefix) else { continue }
                let usage = "usage: " + command.synopsis(prefix: commandPrefix)
                switch command.signature.bind(tokens[length...], in: text) {
                case .success(let bound):
                    var routed = message
                    routed.arguments = CommandArguments(
                        words: tokens[length...].map(\.value), text: CommandSignature.rest(of: tokens[length...], in: text),
                        command: command.invocation(prefix: commandPrefix), usage: usage,
                        declared: Set(command.signature.parameters.map(\.name)), bound: bound)
                    return try await Self.run(routed, through: scoped.middleware[...]) { routed in
                        try await answering(routed, as: .command(command.name), name: command.name, handler: command.handler)
                    }
                case .failure(let failure):
                    guard command.isPrefixed else { continue }
                    let reason: CommandArgumentError.Reason = switch failure.mismatch {
                    case .missing(let parameter): .missing(parameter: parameter.name)
                    case .unexpected(let text): .unexpected(text)
                    }
                    return try await Self.run(message, through: scoped.middleware[...]) { message in
                        try await message.reply(CommandArgumentError(reason, usage: usage).description)
                        return .invalidArguments(command.name)
                    }
                }
            case .pattern(let pattern):
                guard let (captures, handler) = pattern.match(text) else { continue }
                var routed = message
                routed.captures = captures
                return try await Self.run(routed, through: scoped.middleware[...]) { routed in
                    try await answering(routed, as: .pattern(pattern.name), name: pattern.name, handler: handler)
                }
            }
        }
        if let unknownCommandReply, let first = tokens.first, !first.isQuoted, !commandPrefix.isEmpty,
            first.value.hasPrefix(commandPrefix), first.value.count > commandPrefix.count
        {
            try await message.reply(unknownCommandReply(first.value, helpRoute.map { $0.invocation(prefix: commandPrefix) }))
            return .unknownCommand(first.value)
        }
        if let fallbackHandler {
            return try await answering(message, as: .fallback, name: "fallback", handler: fallbackHandler)
        }
        return .unhandled
    }

    /// Runs a handler; a `CommandArgumentError` it throws is replied to the sender instead of propagating.
    private func answering(
        _ message: RoutedMessage, as outcome: RoutingOutcome, name: String,
        handler: @Sendable (RoutedMessage) async throws -> Void
    ) async throws -> RoutingOutcome {
        do {
            try await handler(message)
            return outcome
        } catch let error as CommandArgumentError {
            try await message.reply(error.description)
            return .invalidArguments(name)
        }
    }

    // MARK: Dialogs

    /// Hands the message to the sender's active dialog in the conversation, if there is one that still
    /// applies; nil routes the message as usual.
    private func continueDialog(_ message: RoutedMessage, tokens: [CommandTokenizer.Token]) async throws -> RoutingOutcome? {
        let key = ActiveDialog.key(for: message.conversationId)
        let state: ActiveDialog?
        do {
            state = try await message.context.state.value(key, in: .user(message.senderId))
        } catch is DecodingError {
            message.logger.warning("dialog state dropped: it does not decode", ["key": key.name])
            try await message.endDialog()
            return nil
        }
        guard let state else { return nil }
        guard let dialog = dialogs.first(where: { $0.name == state.name }) else {
            message.logger.warning("dialog dropped: no such dialog is registered", ["dialog": state.name])
            try await message.endDialog()
            return nil
        }
        if state.isExpired(at: message.context.now) {
            message.logger.info("dialog expired", ["dialog": state.name, "step": state.step])
            try await message.endDialog()
            return nil
        }
        var answer = Substring(DialogRunner.normalized(message.text))
        if !commandPrefix.isEmpty, answer.hasPrefix(commandPrefix) { answer = answer.dropFirst(commandPrefix.count) }
        let isCancel = dialog.cancelWords.contains(String(answer))
        if !isCancel, namesPrefixedCommand(tokens) {
            message.logger.info("dialog left for a command", ["dialog": state.name, "step": state.step])
            try await message.endDialog()
            return nil
        }
        var stateFits = true
        let outcome = try await Self.run(message, through: dialog.middleware[...]) { message in
            if isCancel {
                try await message.endDialog()
                if let reply = dialog.cancelReply { try await message.reply(reply) }
                return .dialog(dialog.name)
            }
            do {
                stateFits = try await dialog.resume(state, message)
            } catch let error as CommandArgumentError {
                try await message.reply(error.description)  // the step stays as it was: the answer is asked again
            }
            return .dialog(dialog.name)
        }
        return stateFits ? outcome : nil
    }

    private func namesPrefixedCommand(_ tokens: [CommandTokenizer.Token]) -> Bool {
        if helpRoute?.nameLength(in: tokens, prefix: commandPrefix) != nil { return true }
        return routes.contains { scoped in
            guard case .command(let command) = scoped.route, command.isPrefixed else { return false }
            return command.nameLength(in: tokens, prefix: commandPrefix) != nil
        }
    }

    // MARK: Help

    private var commands: [CommandRoute] {
        routes.compactMap { scoped in
            if case .command(let command) = scoped.route { command } else { nil }
        }
    }

    /// The automatic help command, unless disabled or a registered prefixed command has its name.
    private var helpRoute: CommandRoute? {
        guard let helpCommand else { return nil }
        let help = CommandRoute(
            name: helpCommand, prefix: commandPrefix, isPrefixed: true, usage: "[command...]",
            summary: "list the commands, or explain one", handler: { _ in })
        guard !help.words.isEmpty, !commands.contains(where: { $0.isPrefixed && $0.words == help.words }) else { return nil }
        return help
    }

    private func helpList() -> String {
        let lines = (commands + (helpRoute.map { [$0] } ?? [])).map { command in
            let synopsis = command.synopsis(prefix: commandPrefix)
            return command.summary.isEmpty ? synopsis : "\(synopsis) — \(command.summary)"
        }
        return ([helpIntroduction] + lines).joined(separator: "\n")
    }

    private func helpEntry(for topic: String) -> String {
        guard let command = (commands + (helpRoute.map { [$0] } ?? [])).first(where: { $0.isNamed(topic, prefix: commandPrefix) }) else {
            let help = helpRoute.map { $0.invocation(prefix: commandPrefix) } ?? ""
            return "I have no command “\(topic)”. Send \(help) to see them all."
        }
        let usage = "usage: " + command.synopsis(prefix: commandPrefix)
        return command.summary.isEmpty ? usage : usage + "\n" + command.summary
    }
}
