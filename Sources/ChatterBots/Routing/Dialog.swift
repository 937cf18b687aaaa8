import Foundation

/// A multi-step exchange with one user in one conversation: a question per step, the answer validated
/// (re-asked when it does not fit), what was gathered kept in typed `Values`, and an ending.
///
/// The dialog's position and values live in `BotContext` state (under the sender, per conversation), so a
/// restart in the middle loses nothing. While a dialog is active, the sender's messages in that
/// conversation go to it first, except that:
/// - a cancel word (`cancel`, `stop`, also with the command prefix) ends it with `cancelReply`;
/// - a registered prefixed command (or help) ends it silently and runs as usual;
/// - once `timeout` has passed since the last question (measured with `context.now`), the dialog is
///   dropped and the message is routed as if there had been none.
///
/// Declare it once, register it with the router, start it from any handler:
///
/// ```swift
/// struct Booking: Codable, Sendable { var time = ""; var people = 2 }
///
/// let booking = Dialog("booking", initialValues: Booking())
///     .step("time", ask: "What time? (like 18:30)") { answer, booking in
///         guard answer.text.wholeMatch(of: /\d{1,2}:\d\d/) != nil else { return .retry("Please write a time like 18:30.") }
///         booking.time = answer.text
///         return .next
///     }
///     .step("confirm", ask: { "A table at \($0.time)? (yes/no)" }) { answer, _ in
///         switch Bool(commandArgument: answer.text) {
///         case true?: .finish
///         case false?: .goTo("time")
///         case nil: .retry("Please answer yes or no.")
///         }
///     }
///     .onFinish { message, booking in try await message.reply("Booked for \(booking.time).") }
///
/// router.dialog(booking)
/// router.command("book", summary: "book a table") { try await $0.startDialog(booking) }
/// ```
public struct Dialog<Values: Codable & Sendable>: Sendable {
    /// Identifies the dialog in state: keep it stable across versions of the bot.
    public let name: String
    /// What a started dialog holds unless `startDialog(_:with:)` gives other values.
    public var initialValues: Values
    /// How long a question waits for its answer; nil waits for ever.
    public var timeout: Duration?
    /// Answers that end the dialog, compared without case and trailing punctuation.
    public var cancelWords: Set<String>
    /// The reply to a cancel word; nil says nothing.
    public var cancelReply: String?

    struct Step: Sendable {
        var name: String
        var prompt: @Sendable (Values) -> String
        var handle: @Sendable (RoutedMessage, inout Values) async throws -> DialogTransition
    }

    private(set) var steps: [Step] = []
    private var finish: (@Sendable (RoutedMessage, Values) async throws -> Void)?

    /// A dialog named `name` (stable across versions: it keys the state) whose answers fill `initialValues`.
    public init(
        _ name: String, initialValues: Values, timeout: Duration? = .seconds(600),
        cancelWords: Set<String> = ["cancel", "stop"], cancelReply: String? = "OK, cancelled."
    ) {
        self.name = name
        self.initialValues = initialValues
        self.timeout = timeout
        self.cancelWords = cancelWords
        self.cancelReply = cancelReply
    }

    /// Adds a step that asks `prompt` and reads the answer with `handle`, which may change the values and
    /// says where to go next. Steps run in the order they are added.
    public func step(
        _ name: String, ask prompt: String,
        _ handle: @escaping @Sendable (_ answer: RoutedMessage, _ values: inout Values) async throws -> DialogTransition
    ) -> Dialog {
        step(name, ask: { _ in prompt }, handle)
    }

    /// Adds a step whose question is made from the values gathered so far (e.g. "A table at 18:30?").
    public func step(
        _ name: String, ask prompt: @escaping @Sendable (Values) -> String,
        _ handle: @escaping @Sendable (_ answer: RoutedMessage, _ values: inout Values) async throws -> DialogTransition
    ) -> Dialog {
        var copy = self
        copy.steps.append(Step(name: name, prompt: prompt, handle: handle))
        return copy
    }

    /// What to do when a step returns `.finish` or the last step returns `.next`; the dialog's state is
    /// already removed, so this may start another dialog.
    public func onFinish(_ finish: @escaping @Sendable (_ message: RoutedMessage, _ values: Values) async throws -> Void) -> Dialog {
        var copy = self
        copy.finish = finish
        return copy
    }

    // MARK: Running

    func start(with values: Values, for message: RoutedMessage) async throws {
        guard let first = steps.first else {
            try await message.endDialog()
            try await finish?(message, values)
            return
        }
        try await save(step: first, values: values, for: message)
        try await message.reply(first.prompt(values))
    }

    /// Hands `message` to the step `state` is at. Returns false, having dropped the state, when the state
    /// no longer fits this dialog (a step renamed or values changed shape in a new version of the bot).
    func resume(_ state: ActiveDialog, with message: RoutedMessage) async throws -> Bool {
        guard let index = steps.firstIndex(where: { $0.name == state.step }) else {
            message.logger.warning("dialog dropped: its step no longer exists", ["dialog": name, "step": state.step])
            try await message.endDialog()
            return false
        }
        var values: Values
        do {
            values = try state.values.decode(as: Values.self)
        } catch {
            message.logger.warning(
                "dialog dropped: its stored values no longer decode", ["dialog": name, "error": String(describing: error)])
            try await message.endDialog()
            return false
        }
        let step = steps[index]
        switch try await step.handle(message, &values) {
        case .next:
            if index + 1 < steps.count {
                try await ask(steps[index + 1], values: values, for: message)
            } else {
                try await end(with: values, for: message)
            }
        case .goTo(let name):
            guard let target = steps.first(where: { $0.name == name }) else {
                throw RoutingError.unknownDialogStep(dialog: self.name, step: name)
            }
            try await ask(target, values: values, for: message)
        case .retry(let text):
            try await save(step: step, values: values, for: message)
            try await message.reply(text ?? step.prompt(values))
        case .finish:
            try await end(with: values, for: message)
        }
        return true
    }

    private func ask(_ step: Step, values: Values, for message: RoutedMessage) async throws {
        try await save(step: step, values: values, for: message)
        try await message.reply(step.prompt(values))
    }

    private func end(with values: Values, for message: RoutedMessage) async throws {
        try await message.endDialog()
        try await finish?(message, values)
    }

    private func save(step: Step, values: Values, for message: RoutedMessage) async throws {
        let state = ActiveDialog(
            name: name, step: step.name, values: try JSONValue(encoding: values),
            expiresAt: timeout.map { Timestamp(message.context.now).advanced(by: $0) })
        try await message.context.state.set(state, for: ActiveDialog.key(for: message.conversationId), in: .user(message.senderId))
    }

    /// The dialog without its `Values` type, as the router keeps it.
    var runner: DialogRunner {
        DialogRunner(
            name: name, cancelWords: Set(cancelWords.map { DialogRunner.normalized($0) }), cancelReply: cancelReply,
            resume: { state, message in try await resume(state, with: message) })
    }
}
