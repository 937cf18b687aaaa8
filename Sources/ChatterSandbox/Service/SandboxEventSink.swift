import ChatterBots

/// Where the REST router sends the consequences of a mutation: implemented by the realtime hub, which
/// writes events to open sockets and records pushes for devices without one.
public protocol SandboxEventSink: Sendable {
    /// Delivers each event to its recipients' open sockets (and pushes to their socketless devices).
    func deliver(_ deliveries: [SandboxDelivery]) async

    /// Runs `send`, a new message into `conversationId`, and delivers its events, after the earlier sends into the
    /// conversation delivered theirs and before later ones start, so that `message.new` reaches every device in
    /// `seq` order whatever the concurrency of the senders (each commit is followed by its own fan-out).
    func deliverInOrder<Value: Sendable>(
        in conversationId: Conversation.ID, _ send: () async throws(ChatterErrorBody) -> SandboxOutcome<Value>
    ) async throws(ChatterErrorBody) -> SandboxOutcome<Value>

    /// The device's sessions ended: logged out or revoked (`deviceRevoked`: its sockets close with 4003), or
    /// signed in again so that its old access tokens died (`invalidToken`: 4001). Close its sockets with the
    /// reason's code.
    func endSessions(of deviceId: Device.ID, because reason: SandboxAuthError) async

    /// The user's `privacy.lastSeen` was set: while they are online, friends who may no longer see their presence
    /// hear them go offline, and friends who now may hear them online.
    func privacyChanged(of userId: User.ID) async
}

/// A sink that drops everything: for a service used without realtime clients (tools, tests of REST alone).
public struct DiscardingEventSink: SandboxEventSink {
    public init() {}
    public func deliver(_ deliveries: [SandboxDelivery]) async {}
    public func deliverInOrder<Value: Sendable>(
        in conversationId: Conversation.ID, _ send: () async throws(ChatterErrorBody) -> SandboxOutcome<Value>
    ) async throws(ChatterErrorBody) -> SandboxOutcome<Value> {
        try await send()
    }
    public func endSessions(of deviceId: Device.ID, because reason: SandboxAuthError) async {}
    public func privacyChanged(of userId: User.ID) async {}
}
