import ChatterBots
import Foundation

extension BotStore {
    /// The stored JSON of `key` in `scope` as written, or nil; with `unit`, the unit's own pending write wins.
    /// For `BotContext.stateData`, which hands bot code the JSON to decode with its own types.
    func stateJSON(forKey key: String, in scope: BotScope, overlaying unit: UnitOfWork?) async throws(BotStoreError) -> Data? {
        if let pending = unit?.pendingValue(forKey: key, in: scope) { return pending }
        let text = try await read("read a state value") { db in
            try db.fetchOne(String.self, sql: StateSQL.select, arguments: [scope.kind, scope.id, key])
        }
        return text.map { Data($0.utf8) }
    }
}

extension BotScope {
    /// The store's scope of a bot's `StateScope`.
    init(_ scope: StateScope) {
        switch scope {
        case .global: self = .global
        case .user(let id): self = .user(id)
        case .conversation(let id): self = .conversation(id)
        }
    }
}
