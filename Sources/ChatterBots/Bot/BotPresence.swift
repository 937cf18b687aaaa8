/// What the session knows of friends' presence, from the snapshot at connect and the changes since. Reading it
/// changes nothing, so it has no unit of work.
public protocol BotPresence: Sendable {
    /// The last known presence of a friend; nil if unknown.
    func lastKnown(of userId: User.ID) async -> Presence?
}
