import ChatterBots

/// The result of an operation and the events it causes, in the order they must be delivered.
///
/// The service never delivers anything itself: whoever called it (REST router, realtime session) hands
/// `deliveries` to the `SandboxEventSink` once the operation's transaction has committed.
public struct SandboxOutcome<Value: Sendable>: Sendable {
    public var value: Value
    public var deliveries: [SandboxDelivery]

    public init(value: Value, deliveries: [SandboxDelivery] = []) {
        self.value = value
        self.deliveries = deliveries
    }
}

extension SandboxOutcome: Equatable where Value: Equatable {}

extension SandboxOutcome where Value == Void {
    /// An outcome with no value, only events.
    public init(deliveries: [SandboxDelivery]) {
        self.init(value: (), deliveries: deliveries)
    }
}
