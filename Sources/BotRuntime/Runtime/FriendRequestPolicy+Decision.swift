import ChatterBots

extension FriendRequestPolicy {
    /// What to do with `request` when the bot's handler answered `decision`: the handler's accept, decline or
    /// ignore stands; `.useConfiguredPolicy` accepts when this policy allows the sender and leaves the request
    /// pending otherwise (a person or the bot can still answer it later).
    func resolve(_ decision: FriendRequestDecision, for request: FriendRequest) -> FriendRequestDecision {
        switch decision {
        case .accept, .decline, .ignore:
            return decision
        case .useConfiguredPolicy:
            return allows(username: request.fromUser.username) ? .accept : .ignore
        }
    }
}
