/// The result of register, login and refresh: the device's tokens and who is signed in.
public struct AuthSession: Hashable, Sendable, Codable {
    public var accessToken: String
    /// Works once: each refresh returns a new one (rotation).
    public var refreshToken: String
    /// Lifetime of `accessToken`, in seconds.
    public var expiresIn: Int
    /// The signed-in device; pass it to the next login so the bot stays one device across restarts.
    public var deviceId: Device.ID
    public var user: User

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
    public var accessToken: String
    public var refreshToken: String

    public init(accessToken: String, refreshToken: String) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }
}
