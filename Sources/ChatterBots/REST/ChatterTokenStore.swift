/// The token pair of one signed-in device, shared by the REST client and the realtime connection.
///
/// Refreshes are single-flight: callers that find the same access token rejected at once share one
/// `POST /auth/refresh` (refresh tokens work only once, so a second refresh would fail and could cost
/// the session). Every change is reported to `onChange`, awaited before the new tokens are used, so the
/// runtime can persist rotated tokens first.
public actor ChatterTokenStore {
    /// The current tokens; nil when signed out.
    public private(set) var tokens: SessionTokens?
    private let onChange: @Sendable (SessionTokens?) async -> Void
    private let onRefreshRefused: (@Sendable () async -> Void)?
    private var refreshInFlight: Task<SessionTokens, any Error>?

    /// A store holding `tokens` (nil: signed out); `onChange` is awaited on every change, e.g. to persist rotated tokens first.
    public init(tokens: SessionTokens? = nil, onChange: @escaping @Sendable (SessionTokens?) async -> Void = { _ in }) {
        self.init(tokens: tokens, onChange: onChange, onRefreshRefused: nil)
    }

    /// A store that also calls `onRefreshRefused` once for each refresh the service refused on its merits
    /// (`INVALID_REFRESH_TOKEN` or `UNAUTHORIZED`) while the refused pair is still the current one: the device's
    /// tokens no longer work, and only a new sign-in brings its REST requests back, even while a socket stays open.
    package init(
        tokens: SessionTokens?, onChange: @escaping @Sendable (SessionTokens?) async -> Void,
        onRefreshRefused: (@Sendable () async -> Void)?
    ) {
        self.tokens = tokens
        self.onChange = onChange
        self.onRefreshRefused = onRefreshRefused
    }

    /// Replaces the tokens (after login, register, logout) and reports the change.
    public func replace(with tokens: SessionTokens?) async {
        self.tokens = tokens
        await onChange(tokens)
    }

    /// New tokens after `staleAccessToken` was rejected. If the tokens already moved on, the current
    /// ones are returned without a request; if a refresh is running, its result is shared.
    ///
    /// - Parameter staleAccessToken: the access token that failed; nil to refresh unconditionally.
    /// - Parameter refresh: performs `POST /auth/refresh` with the given refresh token.
    public func refreshed(
        replacing staleAccessToken: String?,
        using refresh: @escaping @Sendable (_ refreshToken: String) async throws -> SessionTokens
    ) async throws -> SessionTokens? {
        if let running = refreshInFlight { return try await running.value }
        guard let current = tokens else { return nil }
        if let staleAccessToken, current.accessToken != staleAccessToken { return current }
        // The task stores the new tokens (and awaits `onChange`) before anyone waiting on it resumes.
        let task = Task { () async throws -> SessionTokens in
            let fresh: SessionTokens
            do {
                fresh = try await refresh(current.refreshToken)
            } catch let error as ChatterAPIError where error.code == .invalidRefreshToken || error.code == .unauthorized {
                await self.refreshRefused(current)
                throw error
            }
            await self.replace(with: fresh)
            return fresh
        }
        refreshInFlight = task
        defer { refreshInFlight = nil }
        return try await task.value
    }

    private func refreshRefused(_ refused: SessionTokens) async {
        guard tokens == refused else { return }
        await onRefreshRefused?()
    }
}
