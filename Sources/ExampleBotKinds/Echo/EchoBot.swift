import ChatterBots

/// The smallest useful bot: it answers every message with the same text, prefixed, and every picture with the same
/// picture, its caption prefixed. With `typingSeconds` it first
/// shows "typing…" for that long, as a person would, which also makes it a handy bot for trying graceful shutdown
/// (a reply in progress is finished and acknowledged before the process exits).
///
/// `bots.json`: `{"name": "echo", "kind": "echo", …, "options": {"prefix": "echo: ", "typingSeconds": 1}}`.
public struct EchoBot: ConfigurableBot {
    /// The kind's options; every field is optional.
    public struct Options: Decodable, Sendable, Equatable {
        /// Put before the echoed text. Default `echo: `.
        public var prefix: String
        /// How long to show "typing…" before replying, from 0 (default) to 20 seconds.
        public var typingSeconds: Double

        public init(prefix: String = "echo: ", typingSeconds: Double = 0) {
            self.prefix = prefix
            self.typingSeconds = typingSeconds
        }

        public init(from decoder: any Decoder) throws {
            try OptionsDecoding.rejectUnknownKeys(in: decoder, known: CodingKeys.allCases.map(\.rawValue))
            let container = try decoder.container(keyedBy: CodingKeys.self)
            prefix = try container.decodeIfPresent(String.self, forKey: .prefix) ?? "echo: "
            typingSeconds = try container.decodeIfPresent(Double.self, forKey: .typingSeconds) ?? 0
            guard (0...20).contains(typingSeconds) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .typingSeconds, in: container, debugDescription: "must be from 0 to 20 seconds")
            }
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case prefix, typingSeconds
        }
    }

    public static let kind = "echo"

    public let options: Options

    public init(options: Options = Options()) {
        self.options = options
    }

    public init(configuration: BotConfiguration) throws(BotOptionsError) {
        self.init(options: try OptionsDecoding.decode(Options.self, from: configuration.options, kind: Self.kind))
    }

    public func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        if message.kind == .photo, let mediaId = message.mediaId {
            let file = try await context.service.downloadMedia(mediaId)
            let picture = try MediaAttachment(data: file.data, contentType: file.contentType)
            try await context.messaging.replyMedia(to: message, picture, caption: options.prefix + message.text)
            return
        }
        guard !message.text.isEmpty else { return }
        if options.typingSeconds > 0 {
            try await context.messaging.setTyping(true, in: message.conversationId)
            try await Task.sleep(for: .milliseconds(Int64(options.typingSeconds * 1000)))
        }
        try await context.reply(to: message, options.prefix + message.text)
    }
}
