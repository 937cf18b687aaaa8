import ChatterBots

/// A signed-in device of a user as the realtime hub needs it: where pushes would go.
public struct SandboxDevice: Hashable, Sendable {
    public var id: Device.ID
    public var userId: User.ID
    /// The APNs token (hex) the device registered, or nil when it registered none.
    public var pushToken: String?
    public var pushEnvironment: PushEnvironment?

    public init(id: Device.ID, userId: User.ID, pushToken: String? = nil, pushEnvironment: PushEnvironment? = nil) {
        self.id = id
        self.userId = userId
        self.pushToken = pushToken
        self.pushEnvironment = pushEnvironment
    }
}
