import Foundation

/// A parsed JSON value: what `bots.json` (and a bot's `options`) is read into before it is checked field by field, so that every
/// problem can be reported with the bot and field at fault (a `DecodingError` cannot name the bot).
package enum ConfigurationJSON: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ConfigurationJSON])
    case object([String: ConfigurationJSON])

    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ConfigurationJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ConfigurationJSON].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// "a string", "an object"…: for messages that say what was found instead of what was expected.
    package var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// `data` encoded as JSON, with sorted keys so the output is stable.
    package func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding a tree of strings, numbers and containers cannot fail except for non-finite numbers,
        // which JSON parsing never produces.
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }
}
