import Foundation

/// A parsed JSON value: what `bots.json` is read into before it is checked field by field, so that every
/// problem can be reported with the bot and field at fault (a `DecodingError` cannot name the bot).
enum ConfigurationJSON: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ConfigurationJSON])
    case object([String: ConfigurationJSON])

    init(from decoder: any Decoder) throws {
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

    func encode(to encoder: any Encoder) throws {
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
    var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// Reads `data` as JSON, or says where the syntax is broken.
    static func parse(_ data: Data) throws(ConfigurationError) -> ConfigurationJSON {
        do {
            return try JSONDecoder().decode(ConfigurationJSON.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw ConfigurationError(issues: [ConfigurationIssue(
                field: "", message: "is not valid JSON" + (detail.map { ": \($0)" } ?? ""))])
        } catch {
            throw ConfigurationError(issues: [ConfigurationIssue(field: "", message: "is not valid JSON: \(error)")])
        }
    }

    /// `data` encoded as JSON, with sorted keys so the output is stable.
    func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding a tree of strings, numbers and containers cannot fail except for non-finite numbers,
        // which JSON parsing never produces.
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }
}
