import BotRuntime
import ChatterBots

/// What the terminal client's logic asks its I/O shell to do. The shell reports each outcome back as a
/// `ChatInput` (for example `.send` → `.acknowledged` or `.sendFailed`); `ChatClient` passes the ack on as the
/// `.server(.messageAck)` it read, so that it keeps its place among the server's events.
public enum ChatAction: Sendable, Hashable {
    /// Send `message.send` and report the ack. Resent with the same `clientMessageId` after a reconnect.
    case send(MessageSend)
    /// Never send this message again, nor resend it after a refusal for now: the person cancelled it.
    case cancelSend(ClientMessageID)
    /// Send `receipt.delivered`.
    case markDelivered(ReceiptPosition)
    /// Send `receipt.read`.
    case markRead(ReceiptPosition)
    /// Fetch the newest `limit` messages of a conversation before `beforeSeq` and report them as `.historyLoaded`.
    case loadHistory(Conversation.ID, beforeSeq: Int, limit: Int)
    /// Open (or create) the direct conversation with a friend and report it as `.conversationOpened` (or
    /// `.directConversationFailed`).
    case openDirectConversation(with: User.ID)
    /// Accept a friend request and report `.friendRequestAccepted`.
    case acceptFriendRequest(FriendRequest.ID)
    /// Add a reaction to a message and report the message as `.reacted`.
    case react(emoji: String, to: Message.ID, in: Conversation.ID)
    /// Decline a friend request and report `.friendRequestDeclined`.
    case declineFriendRequest(FriendRequest.ID)
    /// Fetch a user the screen has no name for and report `.userLoaded`.
    case lookUpUser(User.ID)
    /// After (re)connecting: reload the directory when `refreshDirectory`, then `sync.request` the given
    /// conversations, page what `hasMore` leaves, report each conversation as `.caughtUp`, then `.catchUpEnded` (a
    /// failure drops the connection: the reconnect, after the backoff, catches up again).
    case catchUp(SyncRequest, refreshDirectory: Bool)
    /// Send `typing.start` (`isTyping`) or `typing.stop` for the conversation; best effort.
    case setTyping(Bool, in: Conversation.ID)
    /// Reload the directory (a conversation new to this screen showed up) and report `.directoryLoaded`, or
    /// `.directoryRefreshFailed`.
    case refreshDirectory
    /// Report `.acknowledgementWaitEnded` after this long (on the client's clock): the input ended with messages
    /// still waiting for their acknowledgements.
    case waitForAcknowledgements(Duration)
    /// Close the connection and end the client.
    case quit
}
