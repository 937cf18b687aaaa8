import ChatterBots

/// A push the sandbox "sent" to APNs: stored instead of sent, so tests and the admin API can inspect it.
public struct RecordedPush: Hashable, Sendable, Codable {
    /// Increasing in the order pushes were recorded.
    public var sequence: Int64
    public var deviceId: Device.ID
    public var userId: User.ID
    /// The device's APNs token (hex) at the time of the push.
    public var token: String
    public var environment: PushEnvironment
    /// The exact APNs payload.
    public var payload: PushPayload
    /// `sent`, or `failed` with the APNs `reason` (e.g. `BadDeviceToken`, `MissingProviderToken`).
    public var status: TestPushReport.Status
    public var reason: String?
    public var createdAt: Timestamp

    public init(
        sequence: Int64, deviceId: Device.ID, userId: User.ID, token: String, environment: PushEnvironment,
        payload: PushPayload, status: TestPushReport.Status, reason: String? = nil, createdAt: Timestamp
    ) {
        self.sequence = sequence
        self.deviceId = deviceId
        self.userId = userId
        self.token = token
        self.environment = environment
        self.payload = payload
        self.status = status
        self.reason = reason
        self.createdAt = createdAt
    }
}
