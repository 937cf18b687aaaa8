/// The result of an idempotent create: the entity, and whether this call created it (REST answers 201) or
/// found the one an earlier call made (200): a direct conversation, a message resent with its `clientMessageId`.
public struct SandboxCreation<Value: Sendable>: Sendable {
    public var value: Value
    public var isNew: Bool

    public init(value: Value, isNew: Bool) {
        self.value = value
        self.isNew = isNew
    }
}

extension SandboxCreation: Equatable where Value: Equatable {}
