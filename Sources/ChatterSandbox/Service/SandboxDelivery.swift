import ChatterBots

/// One event a mutation causes, and who receives it: every open socket of `recipients`' devices except
/// `excludedDevice` (the device that made the change and already has its result).
///
/// When `pushTrigger` is set, recipients' devices with a push token and NO open socket get a push instead
/// (ask `ChatterService.pushes(for:to:)` for them); a device never gets both.
public struct SandboxDelivery: Hashable, Sendable {
    public var event: ServerEvent
    public var recipients: [User.ID]
    public var excludedDevice: Device.ID?
    public var pushTrigger: PushTrigger?

    public init(event: ServerEvent, recipients: [User.ID], excludedDevice: Device.ID? = nil, pushTrigger: PushTrigger? = nil) {
        self.event = event
        self.recipients = recipients
        self.excludedDevice = excludedDevice
        self.pushTrigger = pushTrigger
    }
}
