import Foundation
import SQLite

/// The mark a store gets when it is exported (``StoreTransfer``): where it went and when. A marked store does not open
/// for its bot (``BotStoreError/moved(path:file:movedAt:)``), so that the bot never runs in two places, or here
/// again as the device it was; importing the file back clears the mark.
struct StoreMove: Sendable, Equatable {
    /// The file the store was exported to, as the export was given it (made absolute).
    var file: String
    /// When it was exported.
    var movedAt: Date

    /// The `store_metadata` keys of the mark.
    static let fileKey = "moved_to"
    static let movedAtKey = "moved_at"

    /// The mark recorded in `db`, if any.
    static func recorded(in db: Database) throws -> StoreMove? {
        guard let file = try db.fetchOne(String.self, sql: "SELECT value FROM store_metadata WHERE key = ?", arguments: [fileKey])
        else { return nil }
        let milliseconds = try db.fetchOne(
            Int64.self, sql: "SELECT value FROM store_metadata WHERE key = ?", arguments: [movedAtKey]) ?? 0
        return StoreMove(file: file, movedAt: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// Writes this mark into `db`.
    func record(in db: Database) throws {
        let milliseconds = Int64((movedAt.timeIntervalSince1970 * 1000).rounded(.down))
        try db.execute(
            sql: "INSERT OR REPLACE INTO store_metadata (key, value) VALUES (?, ?), (?, ?)",
            arguments: [Self.fileKey, file, Self.movedAtKey, milliseconds])
    }

    /// Removes any mark from `db`.
    static func clear(in db: Database) throws {
        try db.execute(sql: "DELETE FROM store_metadata WHERE key IN (?, ?)", arguments: [fileKey, movedAtKey])
    }
}
