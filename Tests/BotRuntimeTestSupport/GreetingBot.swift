import BotRuntime
import ChatterBots
import Foundation

/// A bot kind for tests: it answers every message with its greeting and the text, after an optional delay.
package struct GreetingBot: Bot {
    package struct Options: Decodable, Sendable {
        package var greeting: String
        package var delaySeconds: Double?

        package init(greeting: String, delaySeconds: Double? = nil) {
            self.greeting = greeting
            self.delaySeconds = delaySeconds
        }
    }

    package let options: Options

    package init(options: Options) {
        self.options = options
    }

    package func onMessage(_ message: IncomingMessage, context: any BotContext) async throws {
        if let delay = options.delaySeconds { try await Task.sleep(for: .milliseconds(Int64(delay * 1000))) }
        try await context.reply(to: message, "\(options.greeting), \(message.text)")
    }

    package static let kind = BotKind("greeting") { configuration in
        GreetingBot(options: try configuration.options.decode())
    }
}
