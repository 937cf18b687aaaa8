import ChatterBots

/// What may cause an APNs push (`seeds/push-notifications.txt`): the realtime hub passes it back to
/// `ChatterService.pushes(for:to:)` for the recipients' devices that have no open socket.
public enum PushTrigger: Hashable, Sendable {
    /// A new message: pushed to the other members' devices, unless they muted the conversation.
    case newMessage(Message)
    /// A friend request: pushed to the recipient's (`toUser`) devices.
    case friendRequestReceived(FriendRequest)
    /// An accepted friend request: pushed to the devices of `sender`, who sent the request `accepter` accepted.
    case friendRequestAccepted(requestId: FriendRequest.ID, sender: User, accepter: User)
}
