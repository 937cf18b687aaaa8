import ChatterBots

/// The sandbox's users by username, for fault requests that name a user rather than a bot of the process (the
/// console of `example-bots sandbox` runs no bots): who is connected now, and a username's user id.
package protocol ConsoleFaultTargets: Sendable {
    /// The usernames of the users that have an open realtime connection now, sorted.
    func connectedUsernames() async -> [String]

    /// The user id of `username`.
    ///
    /// - Throws: `ConsoleInputError` when the sandbox has no such user.
    func userId(ofUsername username: String) async throws(ConsoleInputError) -> User.ID
}
