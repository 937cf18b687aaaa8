import BotRuntime
import ChatterBots

// What the person types: slash commands and text for the open conversation.
extension ChatScreen {
    mutating func handleLine(_ line: String, into update: inout ChatUpdate) {
        let command: ChatCommand
        do {
            command = try ChatCommand(parsing: line)
        } catch {
            update.lines.append(ScreenLine(error.description, tone: .error))
            return
        }
        switch command {
        case .nothing:
            break
        case .list:
            showList(into: &update)
        case .open(let reference):
            open(reference, into: &update)
        case .directMessage(let username):
            openDirect(username: username, into: &update)
        case .friends:
            showFriends(into: &update)
        case .accept(let reference):
            accept(reference, into: &update)
        case .decline(let reference):
            decline(reference, into: &update)
        case .react(let emoji):
            react(emoji, into: &update)
        case .cancel:
            cancelRefused(into: &update)
        case .help:
            update.lines.append(ScreenLine("Commands:", tone: .heading))
            update.lines += ChatCommand.helpText.map { ScreenLine("  " + $0, tone: .notice) }
        case .quit:
            quit(into: &update)
        case .say(let text):
            say(text, into: &update)
        }
    }

    // MARK: /list

    mutating func showList(into update: inout ChatUpdate) {
        let sorted = sortedConversations()
        listing = sorted.map(\.id)
        guard !sorted.isEmpty else {
            update.lines.append(ScreenLine(
                "No conversations yet: /dm <username> starts one with a friend (/friends lists them).", tone: .notice))
            return
        }
        update.lines.append(ScreenLine("Conversations (/open <n>):", tone: .heading))
        let titles = sorted.map { title(of: $0) + ($0.conversation.kind == .group ? " (group)" : "") }
        let width = min(24, titles.map(\.count).max() ?? 0)
        for (index, entry) in sorted.enumerated() {
            var text = "\(String(index + 1).leftPadded(to: 3))  \(titles[index].rightPadded(to: width))"
            text += entry.unread > 0 ? "  \(String(entry.unread).leftPadded(to: 3)) unread" : "            "
            if entry.id == openConversationId { text += "  (open)" }
            if let preview = entry.preview { text += "  " + preview }
            update.lines.append(ScreenLine(text.trimmingTrailingSpaces(), tone: .notice))
        }
    }

    // MARK: /open and /dm

    mutating func open(_ reference: ChatCommand.ConversationReference, into update: inout ChatUpdate) {
        switch reference {
        case .number(let number):
            guard number <= listing.count, conversations[listing[number - 1]] != nil else {
                let known = listing.filter { conversations[$0] != nil }.count
                update.lines.append(ScreenLine(
                    known == 0
                        ? "There is no conversation \(number): you have none yet (/dm <username> starts one)."
                        : "There is no conversation \(number): /list shows the numbers.",
                    tone: .error))
                return
            }
            open(listing[number - 1], into: &update)
        case .name(let name):
            let wanted = name.lowercased()
            let matches = conversations.values.filter { title(of: $0).lowercased() == wanted }
            let candidates = matches.isEmpty
                ? conversations.values.filter { title(of: $0).lowercased().hasPrefix(wanted) } : matches
            if candidates.count == 1, let only = candidates.first {
                open(only.id, into: &update)
            } else if candidates.isEmpty {
                let hint = friend(named: name) != nil ? "/dm \(name) starts one" : "/list shows them"
                update.lines.append(ScreenLine("No conversation is called \"\(name)\": \(hint).", tone: .error))
            } else {
                let names = candidates.map { "\(title(of: $0)) (\(number(of: $0.id)))" }.sorted().joined(separator: ", ")
                update.lines.append(ScreenLine(
                    "\"\(name)\" could be \(names): open one by its number.", tone: .error))
            }
        }
    }

    /// Makes `id` the open conversation: its unread count goes to zero and its recent messages are fetched, every
    /// unread one among them (up to a page of the service), since opening marks them read.
    mutating func open(_ id: Conversation.ID, into update: inout ChatUpdate) {
        guard let entry = conversations[id] else { return }
        if let loading = historyLoading, loading != id {
            historyLoading = nil
            releaseHeld(in: loading, into: &update)
        }
        historyLoading = id
        if typingShown?.conversation != id { stopTyping(into: &update) }
        openConversationId = id
        typing = []
        printedSinceOpen = []
        conversations[id]?.unread = 0
        let kind = entry.conversation.kind == .group
            ? "group of \(entry.conversation.members.count)" : "direct conversation"
        update.lines.append(ScreenLine(
            "── \(title(of: entry)) · \(kind) · conversation \(number(of: id)) ──", tone: .heading))
        let limit = min(Self.largestHistoryPage, max(historyLimit, entry.unread))
        historyPageLimit = limit
        historyReadMark = me.flatMap { entry.watermarks[$0.id]?.read } ?? 0
        update.actions.append(.loadHistory(id, beforeSeq: entry.lastSeq + 1, limit: limit))
    }

    mutating func openDirect(username: String, into update: inout ChatUpdate) {
        guard let friend = friend(named: username) else {
            let known = users.values.first { $0.username.lowercased() == username.lowercased() }
            update.lines.append(ScreenLine(
                known != nil && known?.id == me?.id
                    ? "That is you: /dm takes a friend's username (/friends lists them)."
                    : "\(username) is not your friend: /friends lists your friends.",
                tone: .error))
            return
        }
        if let existing = conversations.values.first(where: {
            $0.conversation.kind == .direct && $0.others(than: me?.id) == [friend.user.id]
        }) {
            open(existing.id, into: &update)
            return
        }
        update.lines.append(ScreenLine("Opening your conversation with \(friend.user.username)…", tone: .status))
        awaitedDirect = friend.user.id
        update.actions.append(.openDirectConversation(with: friend.user.id))
    }

    func friend(named username: String) -> Friend? {
        let wanted = (username.hasPrefix("@") ? String(username.dropFirst()) : username).lowercased()
        return friends.values.first { $0.user.username.lowercased() == wanted }
    }

    // MARK: /friends and /accept

    func showFriends(into update: inout ChatUpdate) {
        if friends.isEmpty {
            update.lines.append(ScreenLine("No friends yet.", tone: .notice))
        } else {
            update.lines.append(ScreenLine("Friends (/dm <username>):", tone: .heading))
            for friend in friends.values.sorted(by: { $0.user.username < $1.user.username }) {
                let isOnline = online.contains(friend.user.id)
                let user = friend.user
                let name = user.displayName == user.username ? user.username : "\(user.username) (\(user.displayName))"
                update.lines.append(ScreenLine("  \(isOnline ? "●" : "○") \(name)\(isOnline ? "  online" : "")", tone: .notice))
            }
        }
        if !incomingRequests.isEmpty {
            update.lines.append(ScreenLine("Friend requests to you (/accept <n> or /decline <n>):", tone: .heading))
            for (index, request) in incomingRequests.enumerated() {
                let user = request.fromUser
                update.lines.append(ScreenLine(
                    "  \(index + 1)  \(user.username) (\(user.displayName))", tone: .notice,
                    suggestions: ScreenLine.Suggestion.answers(toFriendRequestFrom: user.username)))
            }
        }
        if !outgoingRequests.isEmpty {
            let names = outgoingRequests.map(\.toUser.username).joined(separator: ", ")
            update.lines.append(ScreenLine("Waiting for an answer from: \(names)", tone: .notice))
        }
    }

    func accept(_ reference: ChatCommand.FriendRequestReference, into update: inout ChatUpdate) {
        guard let request = incomingRequest(reference, toAnswerWith: "accept", into: &update) else { return }
        update.lines.append(ScreenLine("Accepting \(request.fromUser.username)'s friend request…", tone: .status))
        update.actions.append(.acceptFriendRequest(request.id))
    }

    func decline(_ reference: ChatCommand.FriendRequestReference, into update: inout ChatUpdate) {
        guard let request = incomingRequest(reference, toAnswerWith: "decline", into: &update) else { return }
        update.lines.append(ScreenLine("Declining \(request.fromUser.username)'s friend request…", tone: .status))
        update.actions.append(.declineFriendRequest(request.id))
    }

    /// The friend request `reference` names, or nil after saying there is none.
    private func incomingRequest(
        _ reference: ChatCommand.FriendRequestReference, toAnswerWith verb: String, into update: inout ChatUpdate
    ) -> FriendRequest? {
        let number: Int
        switch reference {
        case .number(let given):
            number = given
        case .username(let name):
            if let request = incomingRequests.first(where: { $0.fromUser.username.lowercased() == name.lowercased() }) {
                return request
            }
            update.lines.append(ScreenLine("There is no friend request from \(name) to \(verb).", tone: .error))
            return nil
        }
        guard number <= incomingRequests.count else {
            update.lines.append(ScreenLine(
                incomingRequests.isEmpty
                    ? "There are no friend requests to \(verb)."
                    : "There is no request \(number): /friends lists \(incomingRequests.count).",
                tone: .error))
            return nil
        }
        return incomingRequests[number - 1]
    }

    // MARK: Reacting

    func react(_ emoji: String, into update: inout ChatUpdate) {
        guard let id = openConversationId, conversations[id] != nil else {
            update.lines.append(ScreenLine("No conversation is open: /open <n> (or /dm <username>) first.", tone: .error))
            return
        }
        guard let message = newestIncoming[id] else {
            update.lines.append(ScreenLine("Nothing to react to yet: /react reacts to the newest message someone else wrote here.",
                tone: .error))
            return
        }
        update.lines.append(ScreenLine("Reacting \(emoji) to \"\(Self.excerpt(content(of: message)))\"…", tone: .status))
        update.actions.append(.react(emoji: emoji, to: message.id, in: id))
    }

    // MARK: Sending

    /// `/cancel`: the messages the service refused for now leave the pending ones, and the shell never sends them.
    mutating func cancelRefused(into update: inout ChatUpdate) {
        let refused = pendingMessages.filter { retryingMessages.contains($0.clientMessageId) }
        guard !refused.isEmpty else {
            update.lines.append(ScreenLine(
                "Nothing to cancel: /cancel takes back a message the service refused for now (\"… Not sent yet\").",
                tone: .error))
            return
        }
        pendingMessages.removeAll { retryingMessages.contains($0.clientMessageId) }
        retryingMessages = []
        for message in refused {
            cancelledMessages[message.clientMessageId] = message
            update.actions.append(.cancelSend(message.clientMessageId))
            update.lines.append(ScreenLine(
                "✗ Cancelled: \"\(Self.excerpt(message.content.body ?? ""))\" will not be sent.", tone: .notice))
        }
        for id in Set(refused.map(\.conversationId)) { releaseHeld(in: id, into: &update) }
    }

    mutating func say(_ text: String, into update: inout ChatUpdate) {
        guard let id = openConversationId, conversations[id] != nil else {
            update.lines.append(ScreenLine(
                "No conversation is open: /list, then /open <n> (or /dm <username>). Nothing was sent.", tone: .error))
            return
        }
        guard text.count <= Self.maximumBodyLength else {
            update.lines.append(ScreenLine(
                "Not sent: \(text.count) characters, the limit is \(Self.maximumBodyLength).", tone: .error))
            return
        }
        let message = MessageSend(conversationId: id, clientMessageId: makeMessageID(), content: .text(text))
        stopTyping(into: &update)  // the seed: typing.stop once the message is sent
        pendingMessages.append(message)
        if isConnected {
            update.actions.append(.send(message))
        } else {
            update.lines.append(ScreenLine("Offline: the message goes out when the connection is back.", tone: .status))
        }
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }

    func rightPadded(to width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }

    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
