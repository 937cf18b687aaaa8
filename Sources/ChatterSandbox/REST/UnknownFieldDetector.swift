import ChatterBots
import Foundation
import Synchronization

/// Finds the fields of a JSON request body that its type never read, so that a misspelled field
/// (`PATCH /me {"displayname": …}`) is refused instead of silently ignored.
///
/// The body is decoded through `FieldRecordingDecoder`, a wrapper around JSONDecoder's decoder that records the
/// path of every key the type asks about (`contains`, `decode`, `decodeIfPresent`, nested containers), and of
/// every object whose keys it enumerates (a dictionary reads them all). Any key of the JSON that was never asked
/// about is unknown. Types need no list of their fields: what their `init(from:)` reads is the list.
enum UnknownFieldDetector {
    /// Decodes `type` from `bytes` and returns it with the dotted path of the first unknown field (sorted), if any.
    static func decode<Body: Decodable>(_ type: Body.Type, from bytes: [UInt8]) throws -> (Body, unknownField: String?) {
        let fields = ReadFields()
        let decoder = JSONDecoder()
        decoder.userInfo[ReadFields.userInfoKey] = fields
        let body = try decoder.decode(FieldRecorded<Body>.self, from: Data(bytes)).value
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
        return (body, firstUnknownField(in: json, path: [], fields: fields))
    }

    private static func firstUnknownField(in json: JSONValue, path: [String], fields: ReadFields) -> String? {
        switch json {
        case .object(let members):
            let everyKeyRead = fields.readsEveryKey(of: path)
            for key in members.keys.sorted() {
                let child = path + [key]
                guard everyKeyRead || fields.wasRead(child) else { return child.joined(separator: ".") }
                if let member = members[key], let unknown = firstUnknownField(in: member, path: child, fields: fields) {
                    return unknown
                }
            }
            return nil
        case .array(let elements):
            for (index, element) in elements.enumerated() {
                if let unknown = firstUnknownField(in: element, path: path + [String(index)], fields: fields) { return unknown }
            }
            return nil
        case .null, .bool, .number, .integer, .string:
            return nil
        }
    }
}

/// The paths a decoding read: keys asked about, and objects whose keys were all enumerated.
final class ReadFields: Sendable {
    static let userInfoKey = CodingUserInfoKey(rawValue: "ChatterSandbox.ReadFields")!

    private struct Paths {
        var keys: Set<[String]> = []
        var wholeObjects: Set<[String]> = []
    }

    private let paths = Mutex(Paths())

    func read(_ codingPath: [any CodingKey]) {
        let path = Self.path(codingPath)
        paths.withLock { _ = $0.keys.insert(path) }
    }

    func readEveryKey(of codingPath: [any CodingKey]) {
        let path = Self.path(codingPath)
        paths.withLock { _ = $0.wholeObjects.insert(path) }
    }

    func wasRead(_ path: [String]) -> Bool { paths.withLock { $0.keys.contains(path) } }

    func readsEveryKey(of path: [String]) -> Bool { paths.withLock { $0.wholeObjects.contains(path) } }

    /// The path as the JSON walk spells it: keys by name, array positions as numbers.
    private static func path(_ codingPath: [any CodingKey]) -> [String] {
        codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
    }
}

/// Decodes `Value` through a `FieldRecordingDecoder` when the decoder carries `ReadFields`.
struct FieldRecorded<Value: Decodable>: Decodable {
    var value: Value

    init(from decoder: any Decoder) throws {
        guard let fields = decoder.userInfo[ReadFields.userInfoKey] as? ReadFields else {
            value = try Value(from: decoder)
            return
        }
        value = try Value(from: FieldRecordingDecoder(base: decoder, fields: fields))
    }

    /// Values JSONDecoder decodes itself by their type (its date, data and URL strategies): passed through unwrapped.
    static var isDecodedByJSONDecoder: Bool {
        Value.self == Date.self || Value.self == Data.self || Value.self == URL.self || Value.self == Decimal.self
    }
}

/// A `Decoder` that forwards to `base` and records in `fields` every key the decoded type reads.
struct FieldRecordingDecoder: Decoder {
    let base: any Decoder
    let fields: ReadFields

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordingKeyedContainer(base: try base.container(keyedBy: type), fields: fields))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        RecordingUnkeyedContainer(base: try base.unkeyedContainer(), fields: fields)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordingSingleValueContainer(base: try base.singleValueContainer(), fields: fields)
    }
}

private struct RecordingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<Key>
    let fields: ReadFields

    var codingPath: [any CodingKey] { base.codingPath }

    var allKeys: [Key] {
        fields.readEveryKey(of: base.codingPath)
        return base.allKeys
    }

    private func read(_ key: Key) { fields.read(base.codingPath + [key]) }

    func contains(_ key: Key) -> Bool {
        read(key)
        return base.contains(key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        read(key)
        return try base.decodeNil(forKey: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        read(key)
        return try base.decode(type, forKey: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        read(key)
        if FieldRecorded<T>.isDecodedByJSONDecoder { return try base.decode(type, forKey: key) }
        return try base.decode(FieldRecorded<T>.self, forKey: key).value
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        read(key)
        return KeyedDecodingContainer(RecordingKeyedContainer<NestedKey>(base: try base.nestedContainer(keyedBy: type, forKey: key), fields: fields))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        read(key)
        return RecordingUnkeyedContainer(base: try base.nestedUnkeyedContainer(forKey: key), fields: fields)
    }

    func superDecoder() throws -> any Decoder {
        FieldRecordingDecoder(base: try base.superDecoder(), fields: fields)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        read(key)
        return FieldRecordingDecoder(base: try base.superDecoder(forKey: key), fields: fields)
    }
}

private struct RecordingUnkeyedContainer: UnkeyedDecodingContainer {
    var base: any UnkeyedDecodingContainer
    let fields: ReadFields

    var codingPath: [any CodingKey] { base.codingPath }
    var count: Int? { base.count }
    var isAtEnd: Bool { base.isAtEnd }
    var currentIndex: Int { base.currentIndex }

    mutating func decodeNil() throws -> Bool { try base.decodeNil() }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }

    mutating func decode(_ type: String.Type) throws -> String { try base.decode(type) }

    mutating func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }

    mutating func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }

    mutating func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }

    mutating func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }

    mutating func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }

    mutating func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }

    mutating func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }

    mutating func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }

    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }

    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }

    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }

    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if FieldRecorded<T>.isDecodedByJSONDecoder { return try base.decode(type) }
        return try base.decode(FieldRecorded<T>.self).value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(RecordingKeyedContainer<NestedKey>(base: try base.nestedContainer(keyedBy: type), fields: fields))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        RecordingUnkeyedContainer(base: try base.nestedUnkeyedContainer(), fields: fields)
    }

    mutating func superDecoder() throws -> any Decoder {
        FieldRecordingDecoder(base: try base.superDecoder(), fields: fields)
    }
}

private struct RecordingSingleValueContainer: SingleValueDecodingContainer {
    let base: any SingleValueDecodingContainer
    let fields: ReadFields

    var codingPath: [any CodingKey] { base.codingPath }

    func decodeNil() -> Bool { base.decodeNil() }

    func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }

    func decode(_ type: String.Type) throws -> String { try base.decode(type) }

    func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }

    func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }

    func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }

    func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }

    func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }

    func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }

    func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }

    func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }

    func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }

    func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }

    func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }

    func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if FieldRecorded<T>.isDecodedByJSONDecoder { return try base.decode(type) }
        return try base.decode(FieldRecorded<T>.self).value
    }
}
