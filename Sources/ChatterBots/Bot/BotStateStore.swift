import Foundation

/// The bot's stored state, as JSON per key and scope: part of the handler's unit of work. Writes are committed
/// with the handler's sends when it returns and discarded when it throws, so state never says a message was
/// answered when the answer was lost; reads see the handler's own uncommitted writes.
public protocol BotStateStore: Sendable {
    /// The stored JSON of a state key, or nil. Prefer the typed `value(_:in:)`.
    func data(for key: String, in scope: StateScope) async throws -> Data?

    /// Stores (or, with nil, removes) the JSON of a state key. Prefer the typed `set(_:for:in:)`.
    func setData(_ data: Data?, for key: String, in scope: StateScope) async throws
}

extension BotStateStore {
    /// The value of `key` in `scope`, or nil when none is stored.
    public func value<Value>(_ key: StateKey<Value>, in scope: StateScope = .global) async throws -> Value? {
        guard let data = try await data(for: key.name, in: scope) else { return nil }
        return try JSONDecoder().decode(Value.self, from: data)
    }

    /// Stores `value` under `key` in `scope` (as JSON).
    public func set<Value>(_ value: Value, for key: StateKey<Value>, in scope: StateScope = .global) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try await setData(try encoder.encode(value), for: key.name, in: scope)
    }

    /// Removes `key` from `scope`.
    public func remove<Value>(_ key: StateKey<Value>, in scope: StateScope = .global) async throws {
        try await setData(nil, for: key.name, in: scope)
    }
}
