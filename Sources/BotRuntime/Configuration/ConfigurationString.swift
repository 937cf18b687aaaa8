import ChatterBots
import Foundation

/// A string of `bots.json` given either literally or as `{"env": "VARIABLE"}`, read from the environment at
/// load time, so secrets (passwords, client keys) never need to be written into the file.
public enum ConfigurationString: Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The value as written.
    case literal(String)
    /// The value of this environment variable.
    case environment(String)

    public init(stringLiteral value: String) {
        self = .literal(value)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(String.self) {
            self = .literal(value)
            return
        }
        let reference = try container.decode([String: String].self)
        guard reference.count == 1, let variable = reference["env"] else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a string or {\"env\": \"VARIABLE\"}")
        }
        self = .environment(variable)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .literal(let value): try container.encode(value)
        case .environment(let variable): try container.encode(["env": variable])
        }
    }

    /// Whether the value is written in the file itself.
    public var isLiteral: Bool {
        if case .literal = self { true } else { false }
    }

    /// The value, or the reason it has none: the variable is not set.
    public func resolve(in environment: [String: String]) -> Result<String, ResolutionFailure> {
        switch self {
        case .literal(let value):
            return .success(value)
        case .environment(let variable):
            guard let value = environment[variable] else { return .failure(ResolutionFailure(variable: variable)) }
            return .success(value)
        }
    }

    /// An environment variable named in `bots.json` is not set.
    public struct ResolutionFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The variable's name.
        public var variable: String
        /// "environment variable NAME is not set".
        public var description: String { "environment variable \(variable) is not set" }
    }

    /// Shows the variable's name for environment values, and the text for literal ones.
    public var description: String {
        switch self {
        case .literal(let value): value
        case .environment(let variable): "$\(variable)"
        }
    }

    var json: ConfigurationJSON {
        switch self {
        case .literal(let value): .string(value)
        case .environment(let variable): .object(["env": .string(variable)])
        }
    }
}
