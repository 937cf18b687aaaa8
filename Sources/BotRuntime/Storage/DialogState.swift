import ChatterBots
import Foundation

/// A small state machine a bot keeps per (user, conversation): which dialog, which step, its data.
///
/// For multi-step exchanges ("When should I remind you?" → "What about?"). An expired dialog reads as
/// absent, so an abandoned exchange does not trap the user.
package struct DialogState: Hashable, Sendable {
    /// Which dialog is running.
    public var name: String
    /// Where it is.
    public var step: String
    /// What it has gathered so far.
    public var data: JSONValue
    /// When the dialog lapses; nil for never.
    public var expiresAt: Date?

    public init(name: String, step: String, data: JSONValue = .null, expiresAt: Date? = nil) {
        self.name = name
        self.step = step
        self.data = data
        self.expiresAt = expiresAt
    }

    /// Whether the dialog has lapsed at `now`.
    public func isExpired(at now: Date) -> Bool {
        expiresAt.map { $0 <= now } ?? false
    }
}
