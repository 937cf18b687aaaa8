/// What the terminal client does when the server refuses its credentials, as the bots do (design.md point 8): the
/// first 4001 since a `session.ready` reconnects at once after the refresh, a second waits for the backoff; a
/// second 4003 before a `session.ready` stops. A server that keeps refusing fresh credentials is then not asked
/// again and again at once.
struct ChatCredentialRetries: Sendable, Hashable {
    private var unauthorizedSinceReady = false
    private var revokedSinceReady = false

    /// A connection reached `session.ready`: the next refusal counts as the first.
    mutating func ready() {
        unauthorizedSinceReady = false
        revokedSinceReady = false
    }

    /// A 4001: whether to wait for the backoff before reconnecting (after refreshing the tokens).
    mutating func unauthorizedWaitsForBackoff() -> Bool {
        defer { unauthorizedSinceReady = true }
        return unauthorizedSinceReady
    }

    /// A 4003: whether to sign in afresh (false: the session signed in afresh was revoked too, so stop).
    mutating func revokedMaySignInAfresh() -> Bool {
        defer { revokedSinceReady = true }
        return !revokedSinceReady
    }
}
