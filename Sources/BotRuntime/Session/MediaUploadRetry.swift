import ChatterBots

/// When a handler's media send uploads its file again after a try that failed: the rule of
/// `RuntimeBotContext.sendMedia`, apart from its I/O.
///
/// A repeated upload leaves at most an unused file behind, never a message, so a try that got no answer (a
/// connection refused, lost, or closed before the response, as a stale kept-alive one is, or a deadline passed;
/// the handler's own timeout bounds them all) goes again: after 0.5 s,
/// then 1 s, three tries in all, kept short because the handler waits for them. An answer of the service (a
/// refusal, a rate limit) and a cancellation are the handler's to handle.
enum MediaUploadRetry {
    /// The most tries of one upload.
    static let maxAttempts = 3

    /// The wait before the next try after `error`, the `attempts`-th failure (1 for the first); nil to throw it.
    static func delay(after error: any Error, attempts: Int) -> Duration? {
        guard attempts < maxAttempts, case .transport? = error as? ChatterClientError else { return nil }
        return .milliseconds(500) * (1 << min(max(attempts - 1, 0), 4))
    }
}
