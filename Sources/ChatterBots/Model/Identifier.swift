/// A typed identifier of a Chatter entity (a ULID on the wire), encoded as a plain JSON string.
///
/// The phantom `Entity` keeps identifiers of different kinds apart: a `User.ID` cannot be passed
/// where a `Conversation.ID` is expected, although both are strings on the wire.
public struct Identifier<Entity>: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    CodingKeyRepresentable, ExpressibleByStringLiteral, CustomStringConvertible
{
    /// The identifier exactly as the API writes it.
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// An identifier from its wire text.
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public init(stringLiteral value: String) { self.rawValue = value }

    public var description: String { rawValue }

    /// ULIDs are time-ordered, so comparing the strings orders identifiers by creation time.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // Lets a `[Identifier: Value]` dictionary encode as a JSON object keyed by the identifier.
    public var codingKey: any CodingKey { IdentifierCodingKey(stringValue: rawValue) }

    public init?<Key: CodingKey>(codingKey: Key) { self.rawValue = codingKey.stringValue }
}

private struct IdentifierCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// The tag of device identifiers: a device is one signed-in installation (a bot is one device for life).
public enum Device {
    /// A device's ULID, as login returns it and the bot's store keeps it.
    public typealias ID = Identifier<Device>
}

/// The tag of media identifiers returned by `POST /media`.
public enum Media {
    /// An uploaded file's id, for a message's `mediaId`.
    public typealias ID = Identifier<Media>
}
