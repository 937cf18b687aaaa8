/// A kind of bot an executable can run: the name `bots.json` refers to in `kind`, and how to make a bot of that
/// kind from its configuration (typically by decoding its `options`).
///
/// ```swift
/// BotKind("echo") { configuration in
///     EchoBot(options: try configuration.options.decode())
/// }
/// ```
public struct BotKind: Sendable {
    /// The name used in `bots.json`.
    public let name: String
    private let make: @Sendable (BotConfiguration) throws -> any Bot

    /// A kind called `name`; `make` builds one bot from its configuration and throws when the options do not
    /// suit it (a `DecodingError` is reported with the bot's name and the option's path).
    public init(_ name: String, make: @escaping @Sendable (BotConfiguration) throws -> any Bot) {
        self.name = name
        self.make = make
    }

    /// A bot of this kind for `configuration`.
    public func makeBot(for configuration: BotConfiguration) throws -> any Bot {
        try make(configuration)
    }
}
