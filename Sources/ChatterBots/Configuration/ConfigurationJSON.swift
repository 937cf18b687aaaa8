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
        } else if let value = try Self.number(in: container) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ConfigurationJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ConfigurationJSON].self))
        }
    }

    /// The container's number; nil when it holds something else. A number beyond a Double's range (which
    /// `JSONDecoder` refuses with an error of its own, not a `DecodingError`) is an error naming its path, rather than a
    /// mismatch with the last type tried ("expected Dictionary").
    private static func number(in container: any SingleValueDecodingContainer) throws -> Double? {
        do {
            return try container.decode(Double.self)
        } catch is DecodingError {
            return nil
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: container.codingPath,
                debugDescription: "a number beyond the range of a Double (about ±1.8e308, nearest 0 1e-308); "
                    + "write one within the field's range", underlyingError: error))
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
