import Foundation

/// Which incoming friend requests a bot accepts without asking its code: `"everyone"`, `"nobody"`, or
/// `{"allowlist": ["ben_tan", …]}` in `bots.json`.
public enum FriendRequestPolicy: Sendable, Equatable {
    /// Accept every request.
    case everyone
    /// Accept none.
    case nobody
    /// Accept requests from these usernames only (compared without regard to case).
    case allowlist(Set<String>)

    /// Whether a request from `username` is accepted by this policy.
    public func allows(username: String) -> Bool {
        switch self {
        case .everyone: true
        case .nobody: false
        case .allowlist(let names): names.contains { $0.caseInsensitiveCompare(username) == .orderedSame }
        }
    }

    package var json: ConfigurationJSON {
        switch self {
        case .everyone: .string("everyone")
        case .nobody: .string("nobody")
        case .allowlist(let names): .object(["allowlist": .array(names.sorted().map { .string($0) })])
        }
    }
}
