/// The result of register, login and refresh: the device's tokens and who is signed in.
public struct AuthSession: Hashable, Sendable, Codable {
    /// The bearer token of REST requests and the `token` of the realtime URL; expires after `expiresIn`.
    public var accessToken: String
    /// Works once: each refresh returns a new one (rotation).
    public var refreshToken: String
    /// Lifetime of `accessToken`, in seconds.
    public var expiresIn: Int
    /// The signed-in device; pass it to the next login so the bot stays one device across restarts.
    public var deviceId: Device.ID
    /// The account that signed in.
    public var user: User

    /// A session as the service returns it (tests and the sandbox build their own).
    public init(accessToken: String, refreshToken: String, expiresIn: Int, deviceId: Device.ID, user: User) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresIn = expiresIn
        self.deviceId = deviceId
        self.user = user
    }

    /// The token pair to keep in a `ChatterTokenStore`.
    public var tokens: SessionTokens { SessionTokens(accessToken: accessToken, refreshToken: refreshToken) }
}

/// The token pair of one signed-in device.
public struct SessionTokens: Hashable, Sendable, Codable {
    /// The bearer token of REST requests and the realtime connection.
    public var accessToken: String
    /// The one-time token that gets the next pair; each refresh rotates it.
    public var refreshToken: String

    /// A pair as login or refresh returned it, or as the bot's store kept it.
    public init(accessToken: String, refreshToken: String) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }
}
