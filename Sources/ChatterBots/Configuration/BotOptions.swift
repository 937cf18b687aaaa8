import Foundation

/// The kind-specific `options` object of a bot in `bots.json`, handed to the bot kind, which decodes it into
/// its own `Decodable` type. Strings inside may be `{"env": "VARIABLE"}` or `{"file": "PATH"}` like any other string
/// of the file; they are replaced by the variable's value or the file's content when the configuration is loaded.
public struct BotOptions: Sendable, Equatable {
    /// No options.
    public static let empty = BotOptions(json: .object([:]))

    package var json: ConfigurationJSON
    /// The values `resolved(in:baseDirectory:report:)` read from the environment or from files: the way `bots.json`
    /// supplies secrets, so the log masks them.
    package var referencedValues: [String] = []

    package init(json: ConfigurationJSON) {
        self.json = json
    }

    /// Options holding `value` encoded as JSON (its encoding must be a JSON object).
    public init(encoding value: some Encodable) throws {
        let data = try JSONEncoder().encode(value)
        let json = try JSONDecoder().decode(ConfigurationJSON.self, from: data)
        guard case .object = json else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "options must be a JSON object"))
        }
        self.json = json
    }

    /// Whether the object has no keys.
    public var isEmpty: Bool {
        if case .object(let fields) = json { fields.isEmpty } else { true }
    }

    /// The options as the bot kind's own type.
    ///
    /// - Throws: `DecodingError` when they do not match `type`; the caller reports it with the bot's name.
    public func decode<Options: Decodable>(as type: Options.Type = Options.self) throws -> Options {
        try JSONDecoder().decode(Options.self, from: json.encoded())
    }

    /// The options as JSON text (sorted keys).
    public var jsonData: Data { json.encoded() }

    /// These options with every `{"env": "VARIABLE"}` replaced by the variable's value and every `{"file": "PATH"}`
    /// by the file's content (`SecretFile`, relative to `baseDirectory`); a variable missing or empty, or a file
    /// unreadable or empty, is reported through `report` with its path under `options`.
    package func resolved(
        in environment: [String: String], baseDirectory: URL? = nil, report: (_ field: String, _ message: String) -> Void
    ) -> BotOptions {
        var referenced: [String] = []
        func resolve(_ value: ConfigurationJSON, path: String) -> ConfigurationJSON {
            switch value {
            case .object(let fields):
                if fields.count == 1, case .string(let variable)? = fields["env"] {
                    guard let resolved = environment[variable] else {
                        report(path, EnvironmentVariableProblem.unset(variable).description)
                        return .null
                    }
                    guard !resolved.isEmpty else {
                        report(path, EnvironmentVariableProblem.empty(variable).description)
                        return .null
                    }
                    referenced.append(resolved)
                    return .string(resolved)
                }
                if fields.count == 1, case .string(let file)? = fields["file"] {
                    switch SecretFile(path: file).read(relativeTo: baseDirectory) {
                    case .success(let content):
                        referenced.append(content)
                        return .string(content)
                    case .failure(let failure):
                        report(path, failure.description)
                        return .null
                    }
                }
                return .object(fields.reduce(into: [:]) { $0[$1.key] = resolve($1.value, path: "\(path).\($1.key)") })
            case .array(let items):
                return .array(items.enumerated().map { resolve($1, path: "\(path)[\($0)]") })
            default:
                return value
            }
        }
        var options = BotOptions(json: resolve(json, path: "options"))
        options.referencedValues = referenced
        return options
    }
}
