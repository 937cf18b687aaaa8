import BotRuntime
import ChatterBots

// What the server says: the directory, realtime events, history, catch-up after a reconnect, acks.
extension ChatScreen {
    // MARK: Directory

    mutating func loadDirectory(_ directory: ChatDirectory, into update: inout ChatUpdate) {
        friends = Dictionary(directory.friends.map { ($0.user.id, $0) }, uniquingKeysWith: { _, last in last })
        for friend in directory.friends { users[friend.user.id] = friend.user }
        incomingRequests = directory.incomingRequests
        outgoingRequests = directory.outgoingRequests
        for request in directory.incomingRequests + directory.outgoingRequests {
            users[request.fromUser.id] = request.fromUser
            users[request.toUser.id] = request.toUser
        }
        let listed = Set(directory.conversations.map(\.id))
        for gone in conversations.keys where !listed.contains(gone) && !addedDuringRefresh.contains(gone) {
            removeConversation(gone, because: "you are no longer in it", into: &update)
        }
        for conversation in directory.conversations {
            let watermarksBefore = conversations[conversation.id]
            if addConversation(conversation) {
                if hasLoadedDirectory {
                    update.lines.append(ScreenLine(
                        "New conversation: \(title(of: conversation)) (/open \(number(of: conversation.id))).", tone: .notice))
                }
            } else if watermarksBefore != nil {
                for member in conversation.members {
                    moveWatermarks(
                        of: member.userId, in: conversation.id, delivered: member.lastDeliveredSeq,
                        read: member.lastReadSeq, into: &update)
                }
            }
            lookUpUnknown(conversation.members.map(\.userId), into: &update)
        }
        guard !hasLoadedDirectory else { return }
        hasLoadedDirectory = true
        showList(into: &update)
        if !incomingRequests.isEmpty {
            update.lines.append(ScreenLine(
                "\(incomingRequests.count) friend request\(incomingRequests.count == 1 ? "" : "s") waiting: /friends.",
                tone: .notice))
        }
    }

    mutating func removeConversation(_ id: Conversation.ID, because reason: String, into update: inout ChatUpdate) {
        guard let entry = conversations.removeValue(forKey: id) else { return }
        forget(seenMessages.forgetAll(in: id))
        newestIncoming[id] = nil
        update.lines.append(ScreenLine("\(title(of: entry)) is gone: \(reason).", tone: .notice))
        if openConversationId == id {
            openConversationId = nil
            typing = []
        }
    }

    // MARK: Realtime events

    mutating func handleServerEvent(_ event: ServerEvent, into update: inout ChatUpdate) {
        switch event {
        case .messageNew(let message):
            receiveLive(message, into: &update)
        case .messageUpdated(let message):
            messageChanged(message, into: &update)
        case .messageAck(let ack):
            acknowledge(ack, into: &update)
        case .receiptUpdated(let receipt):
            moveWatermarks(
                of: receipt.userId, in: receipt.conversationId, delivered: receipt.lastDeliveredSeq,
                read: receipt.lastReadSeq, into: &update)
        case .typing(let indicator):
            typingChanged(indicator, into: &update)
        case .presence(let presence):
            presenceChanged(presence, into: &update)
        case .presenceSnapshot(let snapshot):
            presenceSnapshot(snapshot, into: &update)
        case .conversationCreated(let conversation):
            guard addConversation(conversation) else { break }
            let what = conversation.kind == .group
                ? "You were added to \(title(of: conversation))"
                : "\(title(of: conversation)) started a conversation with you"
            update.lines.append(ScreenLine("\(what): /open \(number(of: conversation.id)).", tone: .notice))
            lookUpUnknown(conversation.members.map(\.userId), into: &update)
        case .conversationUpdated(let conversation):
            addConversation(conversation)
            lookUpUnknown(conversation.members.map(\.userId), into: &update)
        case .conversationRemoved(let id):
            removeConversation(id, because: "you were removed from it", into: &update)
        case .friendRequestReceived(let request):
            guard request.toUser.id == me?.id || me == nil else {
                if !outgoingRequests.contains(where: { $0.id == request.id }) { outgoingRequests.append(request) }
                break
            }
            guard !incomingRequests.contains(where: { $0.id == request.id }) else { break }
            incomingRequests.append(request)
            users[request.fromUser.id] = request.fromUser
            update.lines.append(ScreenLine(
                "\(request.fromUser.username) (\(request.fromUser.displayName)) wants to be your friend: /accept \(incomingRequests.count) or /decline \(incomingRequests.count).",
                tone: .notice, suggestions: ScreenLine.Suggestion.answers(toFriendRequestFrom: request.fromUser.username)))
        case .friendRequestAccepted(let accepted):
            friendshipStarted(accepted, into: &update)
        case .friendRequestCancelled(let requestId):
            guard let index = incomingRequests.firstIndex(where: { $0.id == requestId }) else { break }
            let request = incomingRequests.remove(at: index)
            update.lines.append(ScreenLine("\(request.fromUser.username) withdrew their friend request.", tone: .status))
        case .friendRemoved(let userId):
            guard let friend = friends.removeValue(forKey: userId) else { break }
            online.remove(userId)
            update.lines.append(ScreenLine("\(friend.user.username) is no longer your friend.", tone: .notice))
        case .userUpdated(let user):
            users[user.id] = user
            if let friend = friends[user.id] { friends[user.id] = Friend(user: user, since: friend.since) }
        case .error(let body):
            update.lines.append(ScreenLine("The server refused a request: \(body.code): \(body.message)", tone: .error))
        case .sessionReady, .pong, .syncResponse, .unknown:
            break
        }
    }

    mutating func friendshipStarted(_ accepted: FriendRequestAccepted, into update: inout ChatUpdate) {
        incomingRequests.removeAll { $0.id == accepted.requestId }
        outgoingRequests.removeAll { $0.id == accepted.requestId }
        let user = accepted.friend.user
        users[user.id] = user
        guard friends[user.id] == nil else { return }
        friends[user.id] = accepted.friend
        update.lines.append(ScreenLine("\(user.username) is now your friend: /dm \(user.username) to talk.", tone: .notice))
    }

    // MARK: Messages

    mutating func receiveLive(_ message: Message, into update: inout ChatUpdate) {
        let contiguousBefore = conversations[message.conversationId]?.contiguousSeq
        guard receive(message, into: &update) else { return }
        forgetUnrepeatable(in: message.conversationId)
        // The person's own message (from another device) needs no receipt, unless it filled a gap.
        if message.senderId == me?.id, conversations[message.conversationId]?.contiguousSeq ?? 0 <= (contiguousBefore ?? 0) + 1 {
            return
        }
        // Up to the newest seen: a message that fills a gap makes the ones after it receivable too.
        let newest = conversations[message.conversationId]?.lastSeq ?? message.seq
        sendReceipts(in: message.conversationId, upTo: newest, into: &update)
    }

    /// Prints a message seen for the first time and counts it; false for a duplicate. A message of a
    /// conversation the screen does not know yet asks for the directory (its `conversation.created` was missed).
    @discardableResult
    mutating func receive(_ message: Message, printing: Bool = true, into update: inout ChatUpdate) -> Bool {
        let id = message.conversationId
        guard seenMessages.insert(message.id, seq: message.seq, in: id, floor: lowestRepeatableSeq(in: id)) else { return false }
        if let editedAt = message.editedAt { editStamps[message.id] = editedAt }
        if message.isDeleted { deletedMessageIds.insert(message.id) }
        reactionsShown[message.id] = message.reactions
        guard var entry = conversations[id] else {
            update.lines.append(ScreenLine(
                "[\(clockTime(message.createdAt))] \(name(of: message.senderId)) wrote in a conversation new to this screen.",
                tone: .status))
            if !isRefreshingDirectory {
                isRefreshingDirectory = true
                update.actions.append(.refreshDirectory)
            }
            return true
        }
        let isMine = message.senderId == me?.id
        if !isMine, message.kind != .system, !message.isDeleted,
           (newestIncoming[id]?.seq ?? 0) < message.seq {
            newestIncoming[id] = message
        }
        // Shown in seq order: a message after a missing one that is on its way waits for it, and a live message
        // of a conversation whose history is loading waits for the history.
        let holds = printing
            && (historyLoading == id || (message.seq > entry.contiguousSeq + 1 && expectsMissingMessages(in: id)))
        if message.seq >= entry.lastSeq { entry.preview = preview(of: message) }
        entry.noteSeen(message.seq)
        entry.lastActivity = max(entry.lastActivity, message.createdAt)
        if isMine {
            entry.ownMessages[message.seq] = message.body ?? ""
        } else if id != openConversationId && message.kind != .system {
            entry.unread += 1
        }
        if holds { entry.held[message.seq] = message }
        conversations[id] = entry
        if id == openConversationId {
            if historyLoading == id { printedSinceOpen.insert(message.id) }
            typing.remove(message.senderId)  // their message says they stopped
        }
        lookUpUnknown([message.senderId], into: &update)
        if printing && !holds { update.lines += lines(for: message) }
        releaseHeld(in: id, into: &update)
        return true
    }

    /// Whether messages missing in `id` are on their way: its catch-up has not come back, or the ack of one of the
    /// person's own messages there has not (while none waits to be sent again: the ones after it wait too).
    func expectsMissingMessages(in id: Conversation.ID) -> Bool {
        catchingUp.contains(id)
            || (retryingMessages.isEmpty && pendingMessages.contains { $0.conversationId == id })
    }

    /// Shows the held messages of `id` that nothing is missing before any more, in seq order; every held one when
    /// `all`, or when nothing missing is on its way (a message lost for good must not hide the ones after it).
    mutating func releaseHeld(in id: Conversation.ID, all: Bool = false, into update: inout ChatUpdate) {
        guard var entry = conversations[id], !entry.held.isEmpty, all || historyLoading != id else { return }
        let everything = all || !expectsMissingMessages(in: id)
        for seq in entry.held.keys.sorted() where everything || seq <= entry.contiguousSeq {
            if let message = entry.held.removeValue(forKey: seq) { update.lines += lines(for: message) }
        }
        conversations[id] = entry
    }

    /// The catch-up after a connect is over. A failed one drops the connection, and the reconnect, after the
    /// backoff, catches up again (otherwise the gap would stay until the next network loss, and receipts with it).
    mutating func catchUpEnded(failure: String?, into update: inout ChatUpdate) {
        isRefreshingDirectory = false
        let waiting = catchingUp
        catchingUp = []
        for id in waiting { releaseHeld(in: id, into: &update) }
        guard let failure else { return }
        update.lines.append(ScreenLine(
            "Could not fetch what was missed while offline (\(failure)); reconnecting to try again.", tone: .error))
    }

    /// `receipt.delivered` up to `newest`, and `receipt.read` too when the conversation is open; never past a
    /// missing message (a receipt says everything up to its seq is here).
    mutating func sendReceipts(in id: Conversation.ID, upTo newest: Int, into update: inout ChatUpdate) {
        guard let me = me?.id, let entry = conversations[id] else { return }
        let seq = min(newest, entry.contiguousSeq)
        let mine = entry.watermarks[me] ?? .init(delivered: 0, read: 0)
        let position = ReceiptPosition(conversationId: id, seq: seq)
        if id == openConversationId {
            if seq > mine.read {
                update.actions.append(.markRead(position))
                conversations[id]?.watermarks[me] = .init(delivered: max(mine.delivered, seq), read: seq)
            }
        } else if seq > mine.delivered {
            update.actions.append(.markDelivered(position))
            conversations[id]?.watermarks[me] = .init(delivered: seq, read: mine.read)
        }
    }

    mutating func messageChanged(_ message: Message, into update: inout ChatUpdate) {
        guard seenMessages.remembers(message.id, in: message.conversationId), conversations[message.conversationId] != nil
        else { return }
        let prefix = conversationPrefix(message.conversationId)
        if message.isDeleted {
            guard deletedMessageIds.insert(message.id).inserted else { return }
            conversations[message.conversationId]?.ownMessages.removeValue(forKey: message.seq)
            // `/react` must not react to a message that is gone.
            if newestIncoming[message.conversationId]?.id == message.id { newestIncoming[message.conversationId] = nil }
            update.lines.append(ScreenLine("\(prefix)\(name(of: message.senderId)) deleted a message.", tone: .status))
        } else if let editedAt = message.editedAt, editStamps[message.id] != editedAt {
            editStamps[message.id] = editedAt
            if message.senderId == me?.id {
                conversations[message.conversationId]?.ownMessages[message.seq] = message.body ?? ""
            }
            update.lines.append(ScreenLine(
                "\(prefix)\(name(of: message.senderId)) edited a message: \(content(of: message))", tone: .status))
        }
        reactionsChanged(message, prefix: prefix, into: &update)
    }

    /// `/react`'s answer: shows the person's own new reaction at once. Everything else in it (others' reactions,
    /// an edit) is left to `message.updated`, which the answer may overtake or follow.
    mutating func ownReactionAnswered(_ message: Message, into update: inout ChatUpdate) {
        guard let me = me?.id, seenMessages.remembers(message.id, in: message.conversationId),
              !deletedMessageIds.contains(message.id),
              conversations[message.conversationId] != nil
        else { return }
        var shown = reactionsShown[message.id] ?? []
        let added = message.reactions.filter { $0.userIds.contains(me) }.map(\.emoji)
            .filter { emoji in !shown.contains { $0.emoji == emoji && $0.userIds.contains(me) } }
        guard !added.isEmpty else { return }
        for emoji in added { shown = Self.adding(me, reactingWith: emoji, to: shown) }
        var answered = message
        answered.reactions = shown
        reactionsChanged(answered, prefix: conversationPrefix(message.conversationId), into: &update)
        ownReactionsAwaitingUpdate[message.id, default: []].formUnion(added)
    }

    /// A line per reaction added to or removed from `message` since it was last shown.
    mutating func reactionsChanged(_ message: Message, prefix: String, into update: inout ChatUpdate) {
        if message.isDeleted { ownReactionsAwaitingUpdate[message.id] = nil }
        var reactions = message.reactions
        if let me = me?.id, let awaited = ownReactionsAwaitingUpdate[message.id] {
            let arrived = Set(reactions.filter { $0.userIds.contains(me) }.map(\.emoji))
            let stillAwaited = awaited.subtracting(arrived)
            ownReactionsAwaitingUpdate[message.id] = stillAwaited.isEmpty ? nil : stillAwaited
            for emoji in stillAwaited.sorted() { reactions = Self.adding(me, reactingWith: emoji, to: reactions) }
        }
        let before = reactionsShown[message.id] ?? []
        guard !message.isDeleted, reactions != before else { return }
        reactionsShown[message.id] = reactions
        func pairs(_ reactions: [Message.Reaction]) -> [(emoji: String, user: User.ID)] {
            reactions.flatMap { reaction in reaction.userIds.map { (reaction.emoji, $0) } }
        }
        let old = pairs(before), new = pairs(reactions)
        let excerpt = Self.excerpt(content(of: message))
        for pair in new where !old.contains(where: { $0 == pair }) {
            update.lines.append(ScreenLine("\(prefix)\(name(of: pair.user)) reacted \(pair.emoji) to \"\(excerpt)\"", tone: .status))
        }
        for pair in old where !new.contains(where: { $0 == pair }) {
            update.lines.append(ScreenLine(
                "\(prefix)\(name(of: pair.user)) took back \(pair.emoji) from \"\(excerpt)\"", tone: .status))
        }
    }

    /// `reactions` with `user` among those who reacted with `emoji`.
    static func adding(_ user: User.ID, reactingWith emoji: String, to reactions: [Message.Reaction]) -> [Message.Reaction] {
        var reactions = reactions
        if let index = reactions.firstIndex(where: { $0.emoji == emoji }) {
            if !reactions[index].userIds.contains(user) { reactions[index].userIds.append(user) }
        } else {
            reactions.append(Message.Reaction(emoji: emoji, userIds: [user]))
        }
        return reactions
    }

    mutating func showHistory(_ messages: [Message], of id: Conversation.ID, into update: inout ChatUpdate) {
        let isAwaited = historyLoading == id
        if isAwaited { historyLoading = nil }
        defer {
            releaseHeld(in: id, into: &update)
            forgetUnrepeatable(in: id)
        }
        guard id == openConversationId, conversations[id] != nil else { return }
        let ordered = messages.filter { $0.conversationId == id }.sorted { $0.seq < $1.seq }
        guard let first = ordered.first else {
            update.lines.append(ScreenLine("No messages yet: type a line to say hello.", tone: .status))
            return
        }
        if ordered.count >= historyPageLimit, first.seq - 1 > historyReadMark {
            let count = first.seq - 1 - historyReadMark
            update.lines.append(ScreenLine(
                "\(count) earlier unread message\(count == 1 ? " is" : "s are") not shown.", tone: .status))
        }
        if var entry = conversations[id] {
            let floor = lowestRepeatableSeq(in: id)
            for message in ordered {
                _ = seenMessages.insert(message.id, seq: message.seq, in: id, floor: floor)
                if let editedAt = message.editedAt { editStamps[message.id] = editedAt }
                if message.isDeleted { deletedMessageIds.insert(message.id) }
                entry.noteSeen(message.seq)
                if message.senderId == me?.id { entry.ownMessages[message.seq] = message.body ?? "" }
            }
            conversations[id] = entry
        }
        for message in ordered where !printedSinceOpen.contains(message.id) {
            update.lines += lines(for: message, withReceiptMark: true)
        }
        if isAwaited { printedSinceOpen = [] }
        if let last = conversations[id]?.lastSeq { sendReceipts(in: id, upTo: last, into: &update) }
        lookUpUnknown(ordered.map(\.senderId), into: &update)
    }

    /// Messages the connection missed. In the open conversation the last `openCatchUpTail`, elsewhere the last
    /// `catchUpPreviewCount`, after a line that counts the rest.
    mutating func catchUp(_ id: Conversation.ID, messages: [Message], members: [MemberWatermarks], into update: inout ChatUpdate) {
        guard conversations[id] != nil else {
            catchingUp.remove(id)  // gone from this screen since the catch-up was asked for
            return
        }
        let floor = lowestRepeatableSeq(in: id)
        let fresh = messages.sorted { $0.seq < $1.seq }.filter { seenMessages.isNew($0.id, seq: $0.seq, in: id, floor: floor) }
        let contiguousBefore = conversations[id]?.contiguousSeq
        let isOpen = id == openConversationId
        let shown = min(fresh.count, isOpen ? Self.openCatchUpTail : Self.catchUpPreviewCount)
        if fresh.count > shown, isOpen {
            let hidden = fresh.count - shown
            update.lines.append(ScreenLine(
                "\(hidden) earlier message\(hidden == 1 ? "" : "s") from while offline \(hidden == 1 ? "is" : "are") not shown "
                    + "(this client has no command to page back to \(hidden == 1 ? "it" : "them")); the last \(shown):",
                tone: .status))
        } else if fresh.count > shown {
            update.lines.append(ScreenLine(
                "\(conversationPrefix(id))\(fresh.count) new messages while offline; the last \(shown):", tone: .status))
        }
        for (index, message) in fresh.enumerated() {
            receive(message, printing: index >= fresh.count - shown, into: &update)
        }
        if let entry = conversations[id], let contiguousBefore, entry.contiguousSeq > contiguousBefore {
            // Up to the newest seen: messages that came live after a gap this catch-up filled are here too.
            sendReceipts(in: id, upTo: entry.lastSeq, into: &update)
        } else if let newest = fresh.last(where: { $0.senderId != me?.id }) {
            sendReceipts(in: id, upTo: newest.seq, into: &update)
        }
        for member in members {
            moveWatermarks(of: member.userId, in: id, delivered: member.lastDeliveredSeq, read: member.lastReadSeq, into: &update)
        }
        catchingUp.remove(id)
        releaseHeld(in: id, into: &update)
        forgetUnrepeatable(in: id)
    }

    /// How many messages a conversation that is not open shows after a reconnect.
    static let catchUpPreviewCount = 3
    /// How many messages the open conversation shows after a reconnect: about two screens, so that thousands missed
    /// do not scroll everything else out of the terminal.
    static let openCatchUpTail = 50

    mutating func acknowledge(_ ack: MessageAck, into update: inout ChatUpdate) {
        defer {
            releaseHeld(in: ack.conversationId, into: &update)
            forgetUnrepeatable(in: ack.conversationId)
        }
        let sent: MessageSend
        if let index = pendingMessages.firstIndex(where: { $0.clientMessageId == ack.clientMessageId }) {
            sent = pendingMessages.remove(at: index)
        } else if let cancelled = cancelledMessages.removeValue(forKey: ack.clientMessageId) {
            sent = cancelled
            update.lines.append(ScreenLine(
                "\"\(Self.excerpt(cancelled.content.body ?? ""))\" was sent before it could be cancelled:", tone: .status))
        } else {
            return
        }
        retryingMessages.remove(ack.clientMessageId)
        let floor = lowestRepeatableSeq(in: ack.conversationId)
        guard seenMessages.insert(ack.messageId, seq: ack.seq, in: ack.conversationId, floor: floor), let me else { return }
        let id = ack.conversationId
        let body = sent.content.body ?? ""
        let message = Message(
            id: ack.messageId, conversationId: id, seq: ack.seq, senderId: me.id, clientMessageId: ack.clientMessageId,
            kind: sent.content.kind, body: sent.content.body, createdAt: ack.createdAt)
        if var entry = conversations[id] {
            if ack.seq >= entry.lastSeq { entry.preview = preview(of: message) }
            entry.noteSeen(ack.seq)
            entry.lastActivity = max(entry.lastActivity, ack.createdAt)
            entry.ownMessages[ack.seq] = body
            if historyLoading == id { entry.held[ack.seq] = message }
            conversations[id] = entry
        }
        if historyLoading != id { update.lines += lines(for: message) }
        if let entry = conversations[id], entry.contiguousSeq > ack.seq {
            // The person's own message was the one missing: the messages after it are all here now.
            sendReceipts(in: id, upTo: entry.lastSeq, into: &update)
        } else if id == openConversationId {
            // Up to the own message: the person's read watermark then says nothing before it is unread.
            sendReceipts(in: id, upTo: ack.seq, into: &update)
        }
        // Receipts that overtook the ack.
        guard let entry = conversations[id] else { return }
        for other in entry.others(than: me.id) {
            guard let marks = entry.watermarks[other], marks.delivered >= ack.seq else { continue }
            update.lines.append(receiptLine(read: marks.read >= ack.seq, by: other, body: body, in: id))
        }
    }

    /// The lowest seq of `id` the screen can still receive again: a catch-up asks for what follows the contiguous
    /// seq, and a history goes at most a page back from the newest, so anything lower can only be a repeat.
    func lowestRepeatableSeq(in id: Conversation.ID) -> Int {
        guard let entry = conversations[id] else { return .min }  // a conversation new to the screen: all may come
        return min(entry.contiguousSeq + 1, entry.lastSeq + 1 - Self.largestHistoryPage)
    }

    /// Forgets what the screen keeps about the messages of `id` below `lowestRepeatableSeq(in:)`, and the person's
    /// own messages there no receipt can be reported on any more.
    mutating func forgetUnrepeatable(in id: Conversation.ID) {
        let floor = lowestRepeatableSeq(in: id)
        forget(seenMessages.forget(below: floor, in: id))
        conversations[id]?.forgetSettledOwnMessages(below: floor, me: me?.id)
    }

    private mutating func forget(_ ids: [Message.ID]) {
        for messageId in ids {
            editStamps[messageId] = nil
            reactionsShown[messageId] = nil
            ownReactionsAwaitingUpdate[messageId] = nil
            deletedMessageIds.remove(messageId)
            printedSinceOpen.remove(messageId)
        }
    }

    // MARK: Receipts

    /// Records a member's watermarks (they only move forward) and reports the person's own messages they
    /// newly cover: the newest one read (✓✓), or else the newest one delivered (✓).
    mutating func moveWatermarks(
        of userId: User.ID, in id: Conversation.ID, delivered: Int, read: Int, into update: inout ChatUpdate
    ) {
        guard var entry = conversations[id] else { return }
        let old = entry.watermarks[userId] ?? .init(delivered: 0, read: 0)
        let newRead = max(old.read, read)
        let new = ChatConversation.Watermarks(delivered: max(old.delivered, delivered, newRead), read: newRead)
        guard new != old else { return }
        defer { forgetUnrepeatable(in: id) }
        entry.watermarks[userId] = new
        if userId == me?.id {
            if id != openConversationId { entry.unread = min(entry.unread, max(0, entry.lastSeq - new.read)) }
            conversations[id] = entry
            return
        }
        conversations[id] = entry
        let own = entry.ownMessages
        if let seq = own.keys.filter({ $0 > old.read && $0 <= new.read }).max(), let body = own[seq] {
            update.lines.append(receiptLine(read: true, by: userId, body: body, in: id))
        } else if let seq = own.keys.filter({ $0 > old.delivered && $0 <= new.delivered }).max(), let body = own[seq] {
            update.lines.append(receiptLine(read: false, by: userId, body: body, in: id))
        }
    }

    mutating func receiptLine(read: Bool, by userId: User.ID, body: String, in id: Conversation.ID) -> ScreenLine {
        let mark = read ? "✓✓ read by" : "✓ delivered to"
        return ScreenLine("\(conversationPrefix(id))\(mark) \(name(of: userId)): \"\(Self.excerpt(body))\"", tone: .status)
    }

    // MARK: Typing and presence

    mutating func typingChanged(_ indicator: TypingIndicator, into update: inout ChatUpdate) {
        guard indicator.userId != me?.id, indicator.conversationId == openConversationId else { return }
        if indicator.isTyping {
            guard typing.insert(indicator.userId).inserted else { return }
            update.lines.append(ScreenLine(typingText(), tone: .status))
        } else {
            guard typing.remove(indicator.userId) != nil else { return }
            update.lines.append(ScreenLine(
                typing.isEmpty ? "\(name(of: indicator.userId)) stopped typing." : typingText(), tone: .status))
        }
    }

    func typingText() -> String {
        let names = typing.map { name(of: $0) }.sorted()
        switch names.count {
        case 0: return ""
        case 1: return "\(names[0]) is typing…"
        default: return names.dropLast().joined(separator: ", ") + " and \(names[names.count - 1]) are typing…"
        }
    }

    mutating func presenceChanged(_ presence: Presence, into update: inout ChatUpdate) {
        guard presence.userId != me?.id else { return }
        if presence.isOnline {
            guard online.insert(presence.userId).inserted else { return }
            update.lines.append(ScreenLine("● \(name(of: presence.userId)) is online.", tone: .status))
        } else {
            guard online.remove(presence.userId) != nil else { return }
            let seen = presence.lastSeenAt.map { " (last seen \(clockTime($0)))" } ?? ""
            update.lines.append(ScreenLine("○ \(name(of: presence.userId)) went offline\(seen).", tone: .status))
        }
        lookUpUnknown([presence.userId], into: &update)
    }

    mutating func presenceSnapshot(_ snapshot: [Presence], into update: inout ChatUpdate) {
        guard hasPresenceSnapshot else {
            hasPresenceSnapshot = true
            online = Set(snapshot.filter(\.isOnline).map(\.userId))
            lookUpUnknown(Array(online), into: &update)
            let names = online.map { name(of: $0) }.sorted()
            update.lines.append(ScreenLine(
                names.isEmpty ? "None of your friends is online." : "Online now: \(names.joined(separator: ", ")).",
                tone: .status))
            return
        }
        // After a reconnect: report only what changed while the socket was down.
        let reported = Set(snapshot.map(\.userId))
        for presence in snapshot { presenceChanged(presence, into: &update) }
        for userId in online where !reported.contains(userId) {
            presenceChanged(Presence(userId: userId, isOnline: false), into: &update)
        }
    }
}
