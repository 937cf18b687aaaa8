import ChatterBots
import Foundation
import SQLite

extension Row {
    /// The TEXT column `name` as a typed identifier.
    func identifier<Entity>(_ name: String) throws -> Identifier<Entity> {
        Identifier(try self[name] as String)
    }

    /// The nullable TEXT column `name` as a typed identifier.
    func optionalIdentifier<Entity>(_ name: String) throws -> Identifier<Entity>? {
        (try self[name] as String?).map { Identifier($0) }
    }

    /// The INTEGER column `name` as a `seq` or watermark; a value outside ``SequenceNumber/range`` (a store written
    /// by another program) is a corrupt record rather than an overflow later.
    func sequenceNumber(_ name: String, table: String, key: String) throws -> Int {
        guard let value = try optionalSequenceNumber(name, table: table, key: key) else {
            throw BotStoreError.corruptRecord(table: table, key: key, reason: "\(name) is null")
        }
        return value
    }

    /// The nullable INTEGER column `name` as a `seq` or watermark, checked as ``sequenceNumber(_:table:key:)`` does.
    func optionalSequenceNumber(_ name: String, table: String, key: String) throws -> Int? {
        guard let value = try self[name] as Int? else { return nil }
        guard SequenceNumber.range.contains(value) else {
            throw BotStoreError.corruptRecord(table: table, key: key, reason: "\(name) holds \(value), no sequence number")
        }
        return value
    }

    /// The INTEGER milliseconds column `name` as a `Timestamp`.
    func timestamp(_ name: String) throws -> Timestamp? {
        (try self[name] as Int64?).map { Timestamp(millisecondsSince1970: $0) }
    }

    /// The JSON TEXT column `name` decoded as `type`; a failure is a corrupt record of `table` at `key`.
    func decodedJSON<T: Decodable>(_ type: T.Type, _ name: String, table: String, key: String) throws -> T {
        let text: String = try self[name]
        do {
            return try JSONDecoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw BotStoreError.corruptRecord(table: table, key: key, reason: "\(name): \(error)")
        }
    }

    /// The nullable JSON TEXT column `name` decoded as `type`.
    func optionalDecodedJSON<T: Decodable>(_ type: T.Type, _ name: String, table: String, key: String) throws -> T? {
        guard (try self[name] as String?) != nil else { return nil }
        return try decodedJSON(type, name, table: table, key: key)
    }

    /// The TEXT column `name` read as a raw-representable enum; an unknown value is a corrupt record.
    func rawEnum<T: RawRepresentable>(_ type: T.Type, _ name: String, table: String, key: String) throws -> T where T.RawValue == String {
        let text: String = try self[name]
        guard let value = T(rawValue: text) else {
            throw BotStoreError.corruptRecord(table: table, key: key, reason: "\(name) holds unknown value \"\(text)\"")
        }
        return value
    }
}

/// JSON text of a value the store writes itself (payloads, job data): sorted keys, so equal values are equal text.
enum StoreJSON {
    static func text<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
