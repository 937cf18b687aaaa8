/// Logs every message with the message id as `trace`, and gives handlers a logger carrying that trace
/// (`message.logger`), so one `grep trace=<id>` finds all a message caused.
///
/// Logs "message received" at `.debug` (with sender, conversation, seq and text length, never the text)
/// before, then "message routed" with `route=` (the `RoutingOutcome`) after, or "message handling failed"
/// at `.error` with the error before rethrowing it. Put it first so it sees what later middleware stops.
public struct LoggingMiddleware: MessageMiddleware {
    /// The level of the "message routed" record.
    public var level: BotLogger.Level

    /// A middleware logging "message routed" at `level`.
    public init(level: BotLogger.Level = .info) {
        self.level = level
    }

    /// Logs the message, hands on a logger carrying its trace, and logs the outcome or the error.
    public func handle(
        _ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome
    ) async throws -> RoutingOutcome {
        var traced = message
        traced.logger = message.logger.with(["trace": message.id.rawValue])
        traced.logger.debug("message received", [
            "sender": message.senderId.rawValue, "conversation": message.conversationId.rawValue,
            "seq": String(message.seq), "length": String(message.text.count),
        ])
        do {
            let outcome = try await next(traced)
            traced.logger.log(level, "message routed", ["route": outcome.description])
            return outcome
        } catch {
            traced.logger.error("message handling failed", ["error": String(describing: error)])
            throw error
        }
    }
}
