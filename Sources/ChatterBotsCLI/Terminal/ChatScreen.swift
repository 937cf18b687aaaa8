import BotRuntime
import ChatterBots
import Foundation

/// The terminal client's logic, apart from all I/O: it takes one `ChatInput` at a time (a typed line, a server
/// event, the result of a request) and returns the lines to print and the `ChatAction`s to carry out.
///
/// It keeps the conversations with their unread counts, the open conversation, friends and who of them is
/// online, pending friend requests, who is typing, and the messages not yet acknowledged (resent with the same
/// `clientMessageId` after every reconnect, so a drop never loses or doubles a message). `ChatClient` is the
/// shell that feeds it; tests feed it directly.
public struct ChatScreen: Sendable {
    /// The signed-in person, once `.signedIn` arrived.
    public internal(set) var me: User?
    /// Whether the realtime session is up: messages go out at once, otherwise they wait for `.connected`.
    public internal(set) var isConnected = false
    /// The conversation plain lines are sent to.
    public internal(set) var openConversationId: Conversation.ID?
    /// The friend whose direct conversation `/dm` asked the server for, until it opens or fails. Lines typed
    /// meanwhile wait in `linesAwaitingConversation`, so that text meant for it goes nowhere else.
    var awaitedDirect: User.ID?
    var linesAwaitingConversation: [String] = []
    /// Messages typed but not acknowledged yet, oldest first.
    public internal(set) var pendingMessages: [MessageSend] = []
    /// Pending messages the service refused for now, until acknowledged, refused for good or cancelled.
    var retryingMessages: Set<ClientMessageID> = []
    /// Messages the person cancelled (`/cancel`), in case a resend already on its way is stored after all: its ack
    /// then says so. It grows only with what the person cancels.
    var cancelledMessages: [ClientMessageID: MessageSend] = [:]
    /// How many recent messages opening a conversation shows.
    public let historyLimit: Int

    var conversations: [Conversation.ID: ChatConversation] = [:]
    /// The conversation numbers of `/open <n>`: set by `/list`, extended as conversations appear.
    var listing: [Conversation.ID] = []
    var users: [User.ID: User] = [:]
    var friends: [User.ID: Friend] = [:]
    var incomingRequests: [FriendRequest] = []
    var outgoingRequests: [FriendRequest] = []
    var online: Set<User.ID> = []
    var hasPresenceSnapshot = false
    /// Who is typing in the open conversation.
    var typing: Set<User.ID> = []
    /// The messages seen, each conversation's only down to the lowest seq that can arrive again; what the screen
    /// keeps per message (edit stamps, reactions, deletions) is forgotten with them (`forgetUnrepeatable(in:)`).
    var seenMessages = SeenMessages()
    /// Messages of the open conversation shown or held while its history loads, so the history does not repeat
    /// them; emptied once the history is shown, since nothing else can repeat them.
    var printedSinceOpen: Set<Message.ID> = []
    var editStamps: [Message.ID: Timestamp] = [:]
    /// The reactions last shown for each message, so that a change prints what was added or removed.
    var reactionsShown: [Message.ID: [Message.Reaction]] = [:]
    /// The person's own reactions shown from `/react`'s answer whose `message.updated` has not come yet: an update
    /// the server sent before the reaction lacks them and must not print them as taken back.
    var ownReactionsAwaitingUpdate: [Message.ID: Set<String>] = [:]
    /// The newest message someone else wrote in each conversation: what `/react` reacts to.
    var newestIncoming: [Conversation.ID: Message] = [:]
    var deletedMessageIds: Set<Message.ID> = []
    var requestedLookups: Set<User.ID> = []
    /// Conversations whose catch-up after a connect has not come back yet.
    var catchingUp: Set<Conversation.ID> = []
    /// The conversation whose history is being fetched (the open one).
    var historyLoading: Conversation.ID?
    /// How many messages the last history fetch asked for (a page as long may leave older ones out), and the
    /// person's read watermark when it was asked for.
    var historyPageLimit = 0
    var historyReadMark = 0
    /// Where the person's typing was announced (`typing.start`) and when last, until it stops.
    var typingShown: (conversation: Conversation.ID, at: Date)?
    /// Whether a catch-up that reloads the directory is on its way (one at a time).
    var isRefreshingDirectory = false {
        didSet { if isRefreshingDirectory && !oldValue { addedDuringRefresh = [] } }
    }
    /// Conversations that appeared while the directory was being reloaded: a listing fetched before them must not
    /// take them away.
    var addedDuringRefresh: Set<Conversation.ID> = []
    var hasLoadedDirectory = false
    var hasConnectedBefore = false
    var hasQuit = false
    /// The input ended with messages pending: the client leaves once they are acknowledged, or when the wait ends.
    var isLeaving = false
    /// How many messages were not acknowledged when the input ended and the wait for them did too: they may not
    /// have been sent. (A person who types `/quit` chose to leave, and is only warned.)
    public internal(set) var unacknowledgedAtEnd = 0
    let calendar: Calendar
    let makeMessageID: @Sendable () -> ClientMessageID

    /// The longest message body the service accepts.
    public static let maximumBodyLength = 4096
    /// The most messages the service returns in one page of history.
    static let largestHistoryPage = 500

    /// - Parameters:
    ///   - historyLimit: how many recent messages `/open` shows.
    ///   - timeZone: the zone message times are shown in.
    ///   - makeMessageID: the `clientMessageId` of each new message (random; fixed in tests).
    public init(
        historyLimit: Int = 20, timeZone: TimeZone = .current,
        makeMessageID: @escaping @Sendable () -> ClientMessageID = { ClientMessageID.random() }
    ) {
        self.historyLimit = max(1, historyLimit)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
        self.makeMessageID = makeMessageID
    }

    /// Whether the client is to stop: the person typed `/quit`, or the input ended and no message waits for its
    /// acknowledgement any longer.
    public var hasEnded: Bool { hasQuit }

    /// How long the end of input waits for the acknowledgements of the messages still pending (the connection may be
    /// coming up, or back) before the client leaves without them.
    public static let acknowledgementWait: Duration = .seconds(15)

    /// The unread count of a conversation (0 for the open one and for unknown ones).
    public func unreadCount(in id: Conversation.ID) -> Int {
        conversations[id]?.unread ?? 0
    }

    /// Who is typing in the open conversation, by username, sorted.
    public var typingUsernames: [String] {
        typing.map { name(of: $0) }.sorted()
    }

    /// Applies one input and returns what to print and do.
    public mutating func handle(_ input: ChatInput) -> ChatUpdate {
        var update = ChatUpdate()
        switch input {
        case .line(let line):
            if awaitedDirect != nil {
                linesAwaitingConversation.append(line)
            } else {
                handleLine(line, into: &update)
            }
        case .endOfInput:
            leave(into: &update)
        case .acknowledgementWaitEnded:
            if isLeaving { quit(into: &update) }
        case .personTyping(let isTyping, let now):
            if isTyping { startTyping(at: now, into: &update) } else { stopTyping(into: &update) }
        case .signedIn(let user):
            me = user
            users[user.id] = user
            update.lines.append(ScreenLine("Signed in as \(user.username) (\(user.displayName)).", tone: .notice))
        case .directoryLoaded(let directory):
            isRefreshingDirectory = false
            loadDirectory(directory, into: &update)
        case .connected:
            connected(into: &update)
        case .disconnected(let reason, let retryIn):
            isConnected = false
            typing = []
            typingShown = nil  // the service ends it with the socket's user going quiet
            catchingUp = []
            for id in conversations.keys { releaseHeld(in: id, all: true, into: &update) }
            let next = retryIn.map { "reconnecting in \(Self.describe($0))" } ?? "not reconnecting"
            update.lines.append(ScreenLine("Connection lost (\(reason)); \(next). Messages you type are kept until it is back.", tone: .status))
        case .server(let event):
            handleServerEvent(event, into: &update)
        case .historyLoaded(let id, let messages):
            showHistory(messages, of: id, into: &update)
        case .historyFailed(let id, let reason):
            update.lines.append(ScreenLine("Could not load the messages: \(reason)", tone: .error))
            guard historyLoading == id else { break }
            historyLoading = nil
            releaseHeld(in: id, into: &update)
        case .caughtUp(let id, let messages, let members):
            catchUp(id, messages: messages, members: members, into: &update)
        case .catchUpEnded(let failure):
            catchUpEnded(failure: failure, into: &update)
        case .directoryRefreshFailed(let message):
            isRefreshingDirectory = false
            update.lines.append(ScreenLine(message, tone: .error))
        case .acknowledged(let ack):
            acknowledge(ack, into: &update)
        case .sendRetrying(let clientMessageId, let reason, let delay):
            guard let message = pendingMessages.first(where: { $0.clientMessageId == clientMessageId }) else { break }
            retryingMessages.insert(clientMessageId)
            for id in conversations.keys { releaseHeld(in: id, into: &update) }
            update.lines.append(ScreenLine(
                "… Not sent yet: \"\(Self.excerpt(message.content.body ?? ""))\": \(reason); trying again in \(Self.describe(delay)) (/cancel takes it back).",
                tone: .status))
        case .sendFailed(let clientMessageId, let reason):
            retryingMessages.remove(clientMessageId)
            cancelledMessages[clientMessageId] = nil
            guard let index = pendingMessages.firstIndex(where: { $0.clientMessageId == clientMessageId }) else { break }
            let message = pendingMessages.remove(at: index)
            update.lines.append(ScreenLine(
                "✗ Not sent: \"\(Self.excerpt(message.content.body ?? ""))\": \(reason)", tone: .error))
            releaseHeld(in: message.conversationId, into: &update)
        case .conversationOpened(let conversation):
            addConversation(conversation)
            open(conversation.id, into: &update)
            awaitedDirect = nil
            handleAwaitingLines(into: &update)
        case .directConversationFailed(let userId, let reason):
            update.lines.append(ScreenLine("Could not open the conversation with \(name(of: userId)): \(reason)", tone: .error))
            guard awaitedDirect == userId else { break }
            awaitedDirect = nil
            dropAwaitingText(into: &update)
            handleAwaitingLines(into: &update)
        case .friendRequestAccepted(let accepted):
            friendshipStarted(accepted, into: &update)
        case .reacted(let message):
            ownReactionAnswered(message, into: &update)
        case .friendRequestDeclined(let requestId):
            guard let index = incomingRequests.firstIndex(where: { $0.id == requestId }) else { break }
            let request = incomingRequests.remove(at: index)
            update.lines.append(ScreenLine("Declined \(request.fromUser.username)'s friend request.", tone: .notice))
        case .userLoaded(let user):
            users[user.id] = user
            if let friend = friends[user.id] { friends[user.id] = Friend(user: user, since: friend.since) }
        case .requestFailed(let message):
            update.lines.append(ScreenLine(message, tone: .error))
        }
        if isLeaving, pendingMessages.isEmpty, awaitedDirect == nil { quit(into: &update) }
        return update
    }

    /// Handles the lines typed while a `/dm` was awaited, in order, until one awaits a conversation again.
    private mutating func handleAwaitingLines(into update: inout ChatUpdate) {
        while awaitedDirect == nil, !linesAwaitingConversation.isEmpty {
            handleLine(linesAwaitingConversation.removeFirst(), into: &update)
        }
    }

    /// The `/dm` awaited failed: the text typed for its conversation up to the next command is not sent anywhere.
    private mutating func dropAwaitingText(into update: inout ChatUpdate) {
        while let line = linesAwaitingConversation.first, case .say(let text) = (try? ChatCommand(parsing: line)) {
            linesAwaitingConversation.removeFirst()
            update.lines.append(ScreenLine("✗ Not sent: \"\(Self.excerpt(text))\": no conversation was opened.", tone: .error))
        }
    }

    // MARK: Connection

    private mutating func connected(into update: inout ChatUpdate) {
        isConnected = true
        update.lines.append(ScreenLine(
            hasConnectedBefore ? "Reconnected." : "Connected: messages arrive live. Type /help for the commands.",
            tone: .status))
        let known = Dictionary(uniqueKeysWithValues: conversations.values.map { ($0.id, $0.contiguousSeq) })
        catchingUp = Set(known.keys)
        // Reload the directory after a reconnect (events were missed), or when the first load failed.
        let refresh = hasConnectedBefore || !hasLoadedDirectory
        if refresh { isRefreshingDirectory = true }
        update.actions.append(.catchUp(SyncRequest(conversations: known), refreshDirectory: refresh))
        hasConnectedBefore = true
        update.actions += pendingMessages.map { .send($0) }
    }

    // MARK: The person's typing

    /// How often `typing.start` goes again while the person keeps typing (the seed: every 3 seconds).
    static let typingRepeatInterval: TimeInterval = 3

    /// The person types in the open conversation: `typing.start` unless one went there within the repeat interval.
    mutating func startTyping(at now: Date, into update: inout ChatUpdate) {
        guard isConnected, let id = openConversationId else { return }
        if let shown = typingShown, shown.conversation == id, now.timeIntervalSince(shown.at) < Self.typingRepeatInterval {
            return
        }
        typingShown = (id, now)
        update.actions.append(.setTyping(true, in: id))
    }

    /// The text field was cleared or its message sent: `typing.stop` where typing was announced.
    mutating func stopTyping(into update: inout ChatUpdate) {
        guard let shown = typingShown else { return }
        typingShown = nil
        if isConnected { update.actions.append(.setTyping(false, in: shown.conversation)) }
    }

    /// The input ended: leave now, or once the pending messages are acknowledged (within `acknowledgementWait`).
    mutating func leave(into update: inout ChatUpdate) {
        guard !hasQuit, !isLeaving else { return }
        isLeaving = true
        if let friend = awaitedDirect {
            update.lines.append(ScreenLine(
                "Waiting up to \(Self.describe(Self.acknowledgementWait)) for the conversation with \(name(of: friend)) to open…",
                tone: .status))
        } else {
            guard !pendingMessages.isEmpty else { return }  // `handle` quits
            let count = pendingMessages.count
            update.lines.append(ScreenLine(
                "Waiting up to \(Self.describe(Self.acknowledgementWait)) for \(count) message\(count == 1 ? "" : "s") to be acknowledged…",
                tone: .status))
        }
        update.actions.append(.waitForAcknowledgements(Self.acknowledgementWait))
    }

    mutating func quit(into update: inout ChatUpdate) {
        guard !hasQuit else { return }
        hasQuit = true
        let unhandledTexts = linesAwaitingConversation.filter {
            if case .say = try? ChatCommand(parsing: $0) { true } else { false }
        }
        if isLeaving { unacknowledgedAtEnd = pendingMessages.count + unhandledTexts.count }
        if !unhandledTexts.isEmpty {
            update.lines.append(ScreenLine(
                "\(unhandledTexts.count) message\(unhandledTexts.count == 1 ? " was" : "s were") not sent: the conversation did not open.",
                tone: .error))
        }
        isLeaving = false
        if !pendingMessages.isEmpty {
            update.lines.append(ScreenLine(
                "\(pendingMessages.count) message\(pendingMessages.count == 1 ? " was" : "s were") not acknowledged and may not have been sent.",
                tone: .error))
        }
        update.lines.append(ScreenLine("Bye.", tone: .notice))
        update.actions.append(.quit)
    }

    // MARK: Conversations

    /// Adds or refreshes a conversation from the server, keeping what this screen saw (seq, unread, receipts).
    /// Returns true when it is new.
    @discardableResult
    mutating func addConversation(_ conversation: Conversation) -> Bool {
        if var known = conversations[conversation.id] {
            known.conversation = conversation
            conversations[conversation.id] = known
            return false
        }
        if isRefreshingDirectory { addedDuringRefresh.insert(conversation.id) }
        var entry = ChatConversation(conversation, me: me?.id)
        if let last = conversation.lastMessage {
            entry.preview = preview(of: last)
        }
        if conversation.id == openConversationId { entry.unread = 0 }
        conversations[conversation.id] = entry
        if let last = conversation.lastMessage {
            _ = seenMessages.insert(last.id, seq: last.seq, in: conversation.id, floor: lowestRepeatableSeq(in: conversation.id))
        }
        forgetUnrepeatable(in: conversation.id)
        if !listing.contains(conversation.id) { listing.append(conversation.id) }
        return true
    }

    /// The number `/open` knows a conversation by, giving it the next one when it has none.
    mutating func number(of id: Conversation.ID) -> Int {
        if let index = listing.firstIndex(of: id) { return index + 1 }
        listing.append(id)
        return listing.count
    }

    func sortedConversations() -> [ChatConversation] {
        conversations.values.sorted {
            $0.lastActivity != $1.lastActivity ? $0.lastActivity > $1.lastActivity : $0.id < $1.id
        }
    }

    /// Asks for the users among `ids` the screen has no name for (once each).
    mutating func lookUpUnknown(_ ids: [User.ID], into update: inout ChatUpdate) {
        for id in ids where users[id] == nil && !requestedLookups.contains(id) {
            requestedLookups.insert(id)
            update.actions.append(.lookUpUser(id))
        }
    }
}
