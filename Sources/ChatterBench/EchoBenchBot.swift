import ChatterBots

/// The Swift side of every scenario: answers each message with `echo: <text>`, through the runtime's whole durable
/// path (dedupe record, outbox entry, `message.send`, ack marked) — the same work the Python peer does.
struct EchoBenchBot: Bot {
    /// The kind `run` would make it with: each session makes its bot as it starts.
    static let kind = BotKind("echo") { _ in EchoBenchBot() }

    func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        try await context.reply(to: message, "echo: " + message.text)
    }
}
