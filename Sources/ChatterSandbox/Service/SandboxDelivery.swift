import ChatterBots

/// One event a mutation causes, and who receives it: every open socket of `recipients`' devices except
/// `excludedDevice` (the device that made the change and already has its result).
///
/// When `pushTrigger` is set, recipients' devices with a push token and NO open socket get a push instead
/// (ask `ChatterService.pushes(for:to:)` for them); a device never gets both.
public struct SandboxDelivery: Hashable, Sendable {
    public var event: ServerEvent
    /// The users whose devices receive the event.
    public var recipients: [User.ID]
    /// The device that caused the event and must not receive it (it has the result already).
    public var excludedDevice: Device.ID?
    /// What to push to recipients' socketless devices; nil when the event causes no push.
    public var pushTrigger: PushTrigger?

    public init(event: ServerEvent, recipients: [User.ID], excludedDevice: Device.ID? = nil, pushTrigger: PushTrigger? = nil) {
        self.event = event
        self.recipients = recipients
        self.excludedDevice = excludedDevice
        self.pushTrigger = pushTrigger
    }
}
