import ChatterBots

/// The `options` of a bot in `bots.json` cannot be used by its kind: names the option at fault and says
/// what to write instead, e.g. `reminders options.defaultTimeZone: unknown time zone "Europe/Lisbo"…`.
public struct BotOptionsError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The bot kind whose options these are ("auto-responder").
    public var kind: String
    /// The path of the option at fault inside `options` (`rules[1].pattern`); empty for the whole object.
    public var option: String
    /// What is wrong and how to fix it.
    public var message: String

    public init(kind: String, option: String, message: String) {
        self.kind = kind
        self.option = option
        self.message = message
    }

    public var description: String {
        "\(kind) options\(option.isEmpty ? "" : ".\(option)"): \(message)"
    }
}

/// A bot kind the runtime can build from a bot's entry in `bots.json`.
public protocol ConfigurableBot: Bot {
    /// The `kind` that selects this bot in `bots.json` ("reminders").
    static var kind: String { get }

    /// The bot configured by `configuration`, its `options` decoded and checked.
    init(configuration: BotConfiguration) throws(BotOptionsError)
}

/// Decodes bot options strictly: unknown keys are errors (a misspelled option must not be ignored silently),
/// and every decoding failure becomes a `BotOptionsError` naming the option's path.
enum OptionsDecoding {
    static func decode<Options: Decodable>(
        _ type: Options.Type, from options: BotOptions, kind: String
    ) throws(BotOptionsError) -> Options {
        do {
            return try options.decode(as: type)
        } catch let error as DecodingError {
            throw BotOptionsError(kind: kind, decodingError: error)
        } catch {
            throw BotOptionsError(kind: kind, option: "", message: "cannot be read: \(error)")
        }
    }

    /// Throws for the first key of the object being decoded that is not among `known`.
    static func rejectUnknownKeys(in decoder: any Decoder, known: [String]) throws {
        let container = try decoder.container(keyedBy: OptionKey.self)
        for key in container.allKeys where !known.contains(key.stringValue) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: container,
                debugDescription: "is not an option here; the options are \(known.joined(separator: ", "))")
        }
    }

    /// The dotted path of `codingPath`, with array positions in brackets: `rules[1].pattern`.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var path = ""
        for key in codingPath {
            if let index = key.intValue {
                path += "[\(index)]"
            } else {
                path += path.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return path
    }

    /// A JSON type as a person reading `bots.json` calls it.
    static func jsonTypeName(_ type: Any.Type) -> String {
        let name = String(describing: type)
        switch name {
        case "String": return "a string"
        case "Bool": return "true or false"
        case "Int", "Int64", "Double": return "a number"
        default: return name.hasPrefix("Array") ? "a list" : "an object"
        }
    }
}

/// Any key of a JSON object.
struct OptionKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// A position in a JSON list, for error paths.
struct OptionIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { intValue.map { "Index \($0)" } ?? "" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

extension BotOptionsError {
    init(kind: String, decodingError: DecodingError) {
        switch decodingError {
        case .keyNotFound(let key, let context):
            self.init(kind: kind, option: OptionsDecoding.path(context.codingPath + [key]), message: "is required")
        case .typeMismatch(let type, let context):
            self.init(kind: kind, option: OptionsDecoding.path(context.codingPath), message: "must be \(OptionsDecoding.jsonTypeName(type))")
        case .valueNotFound(let type, let context):
            self.init(kind: kind, option: OptionsDecoding.path(context.codingPath), message: "must be \(OptionsDecoding.jsonTypeName(type)), not null")
        case .dataCorrupted(let context):
            self.init(kind: kind, option: OptionsDecoding.path(context.codingPath), message: context.debugDescription)
        @unknown default:
            self.init(kind: kind, option: "", message: "\(decodingError)")
        }
    }
}
