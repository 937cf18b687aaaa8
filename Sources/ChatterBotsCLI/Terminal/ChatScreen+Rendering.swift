import BotRuntime
import ChatterBots
import Foundation

// How messages, names, times and conversations read on the screen.
extension ChatScreen {
    /// A friend's or member's username; a short id until the user is known.
    func name(of userId: User.ID) -> String {
        if let user = users[userId] { return user.username }
        return "user-" + String(userId.rawValue.suffix(6)).lowercased()
    }

    /// The other person's username for a direct conversation; the title (or the members) of a group.
    func title(of conversation: Conversation) -> String {
        switch conversation.kind {
        case .direct:
            let others = conversation.members.map(\.userId).filter { $0 != me?.id }
            return others.isEmpty ? "just you" : others.map { name(of: $0) }.joined(separator: ", ")
        case .group, .unrecognized:
            if let title = conversation.title, !title.isEmpty { return title }
            let others = conversation.members.map(\.userId).filter { $0 != me?.id }
            return "group with " + others.map { name(of: $0) }.joined(separator: ", ")
        }
    }

    func title(of entry: ChatConversation) -> String { title(of: entry.conversation) }

    /// `[n title] ` before lines about a conversation that is not open, so the person knows where and how to go.
    mutating func conversationPrefix(_ id: Conversation.ID) -> String {
        guard id != openConversationId, let entry = conversations[id] else { return "" }
        return "[\(number(of: id)) \(title(of: entry))] "
    }

    /// `HH:mm` in the screen's time zone.
    func clockTime(_ time: Timestamp) -> String {
        let parts = calendar.dateComponents([.hour, .minute], from: time.date)
        let hour = parts.hour ?? 0
        let minute = parts.minute ?? 0
        return (hour < 10 ? "0" : "") + String(hour) + ":" + (minute < 10 ? "0" : "") + String(minute)
    }

    /// A message as lines: `[14:03] bob: text`, prefixed with its conversation when that is not the open one.
    /// A multi-line body continues on indented lines. With `withReceiptMark`, the person's own messages end with
    /// ✓ (delivered to everyone) or ✓✓ (read by everyone).
    mutating func lines(for message: Message, withReceiptMark: Bool = false) -> [ScreenLine] {
        let prefix = conversationPrefix(message.conversationId)
        let isMine = message.senderId == me?.id
        let time = "[\(clockTime(message.createdAt))] "
        var body = content(of: message).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if withReceiptMark, isMine, let mark = receiptMark(forSeq: message.seq, in: message.conversationId) {
            body[body.count - 1] += "  " + mark
        }
        let head = message.kind == .system ? "* " : "\(name(of: message.senderId)): "
        let tone: ScreenLine.Tone = isMine ? .ownMessage : .message
        let media = message.isDeleted ? nil : message.mediaId.map { ScreenLine.Media(id: $0, kind: message.kind) }
        var result = [ScreenLine(time + prefix + head + body[0], tone: tone, media: media)]
        let indent = String(repeating: " ", count: time.count + 2)
        result += body.dropFirst().map { ScreenLine(indent + $0, tone: tone) }
        return result
    }

    /// ✓✓ when every other member read `seq`, ✓ when every other member has it, nil otherwise.
    func receiptMark(forSeq seq: Int, in id: Conversation.ID) -> String? {
        guard let entry = conversations[id] else { return nil }
        let others = entry.others(than: me?.id)
        guard !others.isEmpty else { return nil }
        let marks = others.map { entry.watermarks[$0] ?? .init(delivered: 0, read: 0) }
        if marks.allSatisfy({ $0.read >= seq }) { return "✓✓" }
        if marks.allSatisfy({ $0.delivered >= seq }) { return "✓" }
        return nil
    }

    /// What a message says: its text, its media kind and caption, or that it was deleted.
    func content(of message: Message) -> String {
        if message.isDeleted { return "(deleted)" }
        var text: String
        switch message.kind {
        case .text, .system:
            text = message.body ?? ""
        case .photo, .voice, .video, .document:
            text = "(\(message.kind.rawValue))" + (message.body.map { " " + $0 } ?? "")
        case .unrecognized(let kind):
            text = "(\(kind) message)" + (message.body.map { " " + $0 } ?? "")
        }
        if message.editedAt != nil { text += " (edited)" }
        return text
    }

    /// `sender: start of the text`, for `/list`.
    func preview(of message: Message) -> String {
        let sender = message.senderId == me?.id ? "you" : name(of: message.senderId)
        return "\(sender): \(Self.excerpt(content(of: message)))"
    }

    /// The first line of `text`, cut to `limit` characters with an ellipsis.
    static func excerpt(_ text: String, limit: Int = 40) -> String {
        let firstLine = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let cut = firstLine.count > limit ? String(firstLine.prefix(limit - 1)) + "…" : firstLine
        return firstLine.count < text.count && cut == firstLine ? cut + " …" : cut
    }

    /// `1.2 s`, `16 s`: how long until the next reconnect.
    static func describe(_ duration: Duration) -> String {
        let seconds = duration.timeInterval
        if seconds < 10 { return String(format: "%.1f s", seconds) }
        return "\(Int(seconds.rounded())) s"
    }
}
