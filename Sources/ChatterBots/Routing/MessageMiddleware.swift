/// Code that runs around the router's handling of every message: before it, after it, or instead of it.
///
/// Middleware added with `MessageRouter.use(_:)` forms a chain in the order added (the first is outermost).
/// Each one calls `next` to go on, possibly with a changed message (more logger fields), or returns an
/// outcome without calling it to stop the chain (usually `.stopped(reason)`, after replying or not).
///
/// ```swift
/// struct QuietHours: MessageMiddleware {
///     func handle(_ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome) async throws -> RoutingOutcome {
///         let hour = Calendar.current.component(.hour, from: message.context.now)
///         guard hour >= 7 else { return .stopped("quiet hours") }
///         return try await next(message)
///     }
/// }
/// ```
public protocol MessageMiddleware: Sendable {
    /// Handles `message`: call `next` (with the same or a changed message) to go on, or return an outcome to stop.
    func handle(
        _ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome
    ) async throws -> RoutingOutcome
}

/// A middleware written as a closure, for `MessageRouter.use(_:)` with a trailing closure.
struct ClosureMiddleware: MessageMiddleware {
    let body: @Sendable (RoutedMessage, (RoutedMessage) async throws -> RoutingOutcome) async throws -> RoutingOutcome

    func handle(
        _ message: RoutedMessage, next: (RoutedMessage) async throws -> RoutingOutcome
    ) async throws -> RoutingOutcome {
        try await body(message, next)
    }
}
