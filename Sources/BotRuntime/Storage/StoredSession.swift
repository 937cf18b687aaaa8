import ChatterBots
import Foundation

/// The signed-in device of a bot, as the store keeps it between runs: who, which device, and its tokens.
///
/// A bot is ONE device for its whole life: the runtime signs in again with `deviceId` (refresh first, then
/// `POST /auth/login` passing it), so restarts never create devices. The tokens are secrets; the store file
/// is readable by its owner only.
package struct StoredSession: Hashable, Sendable {
    public var userId: User.ID
    public var deviceId: Device.ID
    public var accessToken: String
    /// Works once: every refresh returns a new one, which must be saved before it is used.
    public var refreshToken: String
    /// When `accessToken` expires (the receipt time plus `expiresIn`).
    public var accessTokenExpiresAt: Date

    public init(userId: User.ID, deviceId: Device.ID, accessToken: String, refreshToken: String, accessTokenExpiresAt: Date) {
        self.userId = userId
        self.deviceId = deviceId
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.accessTokenExpiresAt = accessTokenExpiresAt
    }

    /// The session of a login, register or refresh result received at `receivedAt`.
    public init(_ session: AuthSession, receivedAt: Date) {
        self.init(
            userId: session.user.id, deviceId: session.deviceId, accessToken: session.accessToken,
            refreshToken: session.refreshToken,
            accessTokenExpiresAt: receivedAt.addingTimeInterval(TimeInterval(session.expiresIn)))
    }

    /// The token pair, as `ChatterTokenStore` holds it.
    public var tokens: SessionTokens {
        SessionTokens(accessToken: accessToken, refreshToken: refreshToken)
    }
}

/// A device the bot has been: when the store first saw it, and when the server revoked it (close 4003).
///
/// The history explains why a bot that should be one device for life has had several: each revocation
/// forces a fresh login, which creates a new device.
package struct DeviceRecord: Hashable, Sendable {
    public var deviceId: Device.ID
    public var userId: User.ID
    public var firstSavedAt: Date
    /// When the device's session data was cleared after a revocation; nil while it is the bot's device.
    public var revokedAt: Date?

    public init(deviceId: Device.ID, userId: User.ID, firstSavedAt: Date, revokedAt: Date?) {
        self.deviceId = deviceId
        self.userId = userId
        self.firstSavedAt = firstSavedAt
        self.revokedAt = revokedAt
    }
}
