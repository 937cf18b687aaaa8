import BotRuntime
import ChatterBots

/// The signed-in person's world as the REST API lists it: friends, friend requests waiting for an answer, and
/// conversations. The terminal client loads it at start and after every reconnect (events missed while offline
/// are not replayed).
public struct ChatDirectory: Sendable, Hashable {
    public var friends: [Friend]
    /// Requests to the person, oldest first (the numbers of `/accept`).
    public var incomingRequests: [FriendRequest]
    /// Requests the person sent that are still pending.
    public var outgoingRequests: [FriendRequest]
    public var conversations: [Conversation]

    public init(
        friends: [Friend], incomingRequests: [FriendRequest] = [], outgoingRequests: [FriendRequest] = [],
        conversations: [Conversation]
    ) {
        self.friends = friends
        self.incomingRequests = incomingRequests
        self.outgoingRequests = outgoingRequests
        self.conversations = conversations
    }
}
