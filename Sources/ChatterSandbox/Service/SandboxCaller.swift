import ChatterBots

/// Who performs an operation: the signed-in user and the device (one installation) they act from.
///
/// Every user-facing operation of `ChatterService` takes one; the REST router and the realtime sessions make
/// it from a validated access token, so the service never trusts an identifier the client sent.
public struct SandboxCaller: Hashable, Sendable {
    public var userId: User.ID
    public var deviceId: Device.ID

    public init(userId: User.ID, deviceId: Device.ID) {
        self.userId = userId
        self.deviceId = deviceId
    }
}

/// What a valid access token grants: the caller it signs in, until it expires.
public struct SandboxAccessGrant: Hashable, Sendable {
    public var caller: SandboxCaller
    /// The first moment the token no longer works (a socket opened with it closes with 4001 then).
    public var expiresAt: Timestamp

    public init(caller: SandboxCaller, expiresAt: Timestamp) {
        self.caller = caller
        self.expiresAt = expiresAt
    }
}
