/// What is wrong with a `{"env": "VARIABLE"}` value of `bots.json`, in words. A process reads its environment once,
/// when it starts, and a reload cannot see a variable set since: the words say so, and point to `{"file": …}`.
package enum EnvironmentVariableProblem: Sendable, Hashable, CustomStringConvertible {
    /// The variable is not in the process's environment.
    case unset(String)
    /// The variable is set to the empty string.
    case empty(String)

    /// How to give a value that a reload sees.
    static let remedy = "the environment is the one the process started with: set it and restart the process, "
        + "or use {\"file\": PATH}, which every reload reads again"

    package var description: String {
        switch self {
        case .unset(let variable): "environment variable \(variable) is not set (\(Self.remedy))"
        case .empty(let variable): "is empty (environment variable \(variable) is set but empty; \(Self.remedy))"
        }
    }
}
