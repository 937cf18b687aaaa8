import BotRuntime
import ChatterBots
import Foundation

/// Everything that can change the terminal client's screen: what the person typed, what the server sent, and
/// the results of the requests the client made for it (`ChatAction`). `ChatScreen.handle(_:)` takes one at a time.
public enum ChatInput: Sendable, Hashable {
    /// A line the person typed (without its line break).
    case line(String)
    /// The person's input ended (Ctrl-D): leave as `/quit` does, once the pending messages are acknowledged (or
    /// `ChatAction.waitForAcknowledgements`' wait ended).
    case endOfInput
    /// The wait of `ChatAction.waitForAcknowledgements` ended: leave, with whatever is still pending.
    case acknowledgementWaitEnded
    /// The person's text field changed at `now`: something is typed (true) or it was cleared (false). A terminal
    /// reads whole lines and has none of these; the web console's page sends them.
    case personTyping(Bool, at: Date)
    /// Signed in as `user`.
    case signedIn(User)
    /// Friends, pending requests and conversations as the REST API lists them (at start and after reconnecting).
    case directoryLoaded(ChatDirectory)
    /// The realtime session is ready (`session.ready`); pending messages can go out.
    case connected
    /// The realtime connection ended for `reason`; the client reconnects after `retryIn` (nil: it gave up).
    case disconnected(reason: String, retryIn: Duration?)
    /// A realtime event from the server.
    case server(ServerEvent)
    /// The recent messages of a conversation, ascending, after `ChatAction.loadHistory`.
    case historyLoaded(Conversation.ID, [Message])
    /// `ChatAction.loadHistory` failed; `reason` says why.
    case historyFailed(Conversation.ID, reason: String)
    /// What a conversation gained while the socket was down (`sync.request` and the pages after it), ascending,
    /// with every member's watermarks.
    case caughtUp(Conversation.ID, messages: [Message], members: [MemberWatermarks])
    /// `ChatAction.catchUp` is over: every conversation it caught up was reported, or it failed for `failure` (the
    /// connection is then dropped and tried again with backoff).
    case catchUpEnded(failure: String?)
    /// `ChatAction.refreshDirectory` failed; `message` says why.
    case directoryRefreshFailed(String)
    /// The server stored a message sent with `ChatAction.send`.
    case acknowledged(MessageAck)
    /// The server refused a message for good (`reason` says why); it is not resent.
    case sendFailed(ClientMessageID, reason: String)
    /// The server refused a message for now (`RATE_LIMITED`, `INTERNAL`): it stays pending and goes again `after`,
    /// unless the person takes it back with `/cancel` (`ChatAction.cancelSend`).
    case sendRetrying(ClientMessageID, reason: String, after: Duration)
    /// The direct conversation `ChatAction.openDirectConversation` asked for.
    case conversationOpened(Conversation)
    /// `ChatAction.openDirectConversation` with `userId` failed; `reason` says why.
    case directConversationFailed(with: User.ID, reason: String)
    /// A friend request was accepted through `ChatAction.acceptFriendRequest`.
    case friendRequestAccepted(FriendRequestAccepted)
    /// The message `ChatAction.react` reacted to, as the server answered it.
    case reacted(Message)
    /// A friend request was declined through `ChatAction.declineFriendRequest`.
    case friendRequestDeclined(FriendRequest.ID)
    /// A user `ChatAction.lookUpUser` asked for.
    case userLoaded(User)
    /// A request made for the person failed; `message` says what and what to do.
    case requestFailed(String)
}
