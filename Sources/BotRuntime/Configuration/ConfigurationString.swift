import ChatterBots
import Foundation

/// A string of `bots.json` given literally, as `{"env": "VARIABLE"}` (from the environment the process started with,
/// which a reload cannot change), or as `{"file": "/run/secrets/name"}` (the file's content, one trailing newline
/// removed, read at every load and reload), so secrets (passwords, client keys) never need to be written into the file.
public enum ConfigurationString: Sendable, Hashable, Codable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The value as written.
    case literal(String)
    /// The value of this environment variable.
    case environment(String)
    /// The content of this file; a relative path is relative to the configuration file's directory.
    case file(String)

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
        if reference.count == 1, let variable = reference["env"] {
            self = .environment(variable)
        } else if reference.count == 1, let path = reference["file"] {
            self = .file(path)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a string, {\"env\": \"VARIABLE\"} or {\"file\": \"PATH\"}")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .literal(let value): try container.encode(value)
        case .environment(let variable): try container.encode(["env": variable])
        case .file(let path): try container.encode(["file": path])
        }
    }

    /// Whether the value is written in the file itself.
    public var isLiteral: Bool {
        if case .literal = self { true } else { false }
    }

    /// The value, or the reason it has none: the variable is not set, or the file cannot be read or is empty. A
    /// relative file path is relative to the working directory.
    public func resolve(in environment: [String: String]) -> Result<String, ResolutionFailure> {
        resolve(in: environment, baseDirectory: nil)
    }

    /// The value, or the reason it has none; a relative file path is relative to `baseDirectory` (the
    /// configuration file's directory).
    public func resolve(in environment: [String: String], baseDirectory: URL?) -> Result<String, ResolutionFailure> {
        switch self {
        case .literal(let value):
            return .success(value)
        case .environment(let variable):
            guard let value = environment[variable] else { return .failure(ResolutionFailure(variable: variable)) }
            return .success(value)
        case .file(let path):
            switch SecretFile(path: path).read(relativeTo: baseDirectory) {
            case .success(let content): return .success(content)
            case .failure(let failure): return .failure(ResolutionFailure(file: failure.path, reason: failure.reason))
            }
        }
    }

    /// An environment variable named in `bots.json` is not set, or a file it names gives no value.
    public struct ResolutionFailure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The variable's name (empty when a file failed).
        public var variable: String
        /// The file's path, when a file failed.
        public var file: String?
        /// What is wrong with the file: "cannot be read (…)", "is empty".
        public var reason: String?

        /// An unset variable.
        public init(variable: String) {
            self.variable = variable
        }

        /// A file that gives no value.
        public init(file: String, reason: String) {
            self.variable = ""
            self.file = file
            self.reason = reason
        }

        /// "environment variable NAME is not set (…)", saying that a reload does not see a variable set since the
        /// process started, or "the file PATH is empty".
        public var description: String {
            if let file { return "the file \(file) \(reason ?? "cannot be read")" }
            return EnvironmentVariableProblem.unset(variable).description
        }
    }

    /// Shows the variable's name for environment values, the path for file values, and the text for literal ones.
    public var description: String {
        switch self {
        case .literal(let value): value
        case .environment(let variable): "$\(variable)"
        case .file(let path): "file \(path)"
        }
    }

    var json: ConfigurationJSON {
        switch self {
        case .literal(let value): .string(value)
        case .environment(let variable): .object(["env": .string(variable)])
        case .file(let path): .object(["file": .string(path)])
        }
    }
}
