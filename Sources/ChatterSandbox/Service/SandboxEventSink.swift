import ChatterBots

/// Where the REST router sends the consequences of a mutation: implemented by the realtime hub, which
/// writes events to open sockets and records pushes for devices without one.
public protocol SandboxEventSink: Sendable {
    /// Delivers each event to its recipients' open sockets (and pushes to their socketless devices).
    func deliver(_ deliveries: [SandboxDelivery]) async

    /// The device was logged out or revoked: close its open sockets with 4003.
    func deviceRevoked(_ deviceId: Device.ID) async
}

/// A sink that drops everything: for a service used without realtime clients (tools, tests of REST alone).
public struct DiscardingEventSink: SandboxEventSink {
    public init() {}
    public func deliver(_ deliveries: [SandboxDelivery]) async {}
    public func deviceRevoked(_ deviceId: Device.ID) async {}
}
