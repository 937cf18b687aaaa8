import ChatterBots

/// Composes the exact APNs payloads of `seeds/push-notifications.txt`. Pure: everything it needs comes in.
public enum PushComposer {
    /// The longest alert body, in UTF-8 bytes, before it is cut with "…" (APNs refuses payloads over 4 KB).
    public static let maxAlertBodyBytes = 1024

    /// A new message: title is the sender's name (`"<sender> @ <group title>"` in a group), body the text or
    /// the media label, badge the recipient's unread count, thread-id the conversation, mutable-content 1.
    public static func newMessage(_ message: Message, sender: User, groupTitle: String?, badge: Int) -> PushPayload {
        let title = groupTitle.map { "\(sender.displayName) @ \($0)" } ?? sender.displayName
        return PushPayload(
            aps: PushPayload.APS(
                alert: PushPayload.Alert(title: title, body: body(of: message)), sound: "default", badge: badge,
                threadId: message.conversationId.rawValue, mutableContent: 1),
            chatter: .messageNew(
                conversationId: message.conversationId, messageId: message.id, seq: message.seq, senderId: message.senderId))
    }

    /// A friend request: "New friend request" / "<name> (@<username>) wants to be your friend".
    public static func friendRequestReceived(_ request: FriendRequest) -> PushPayload {
        PushPayload(
            aps: PushPayload.APS(
                alert: PushPayload.Alert(
                    title: "New friend request",
                    body: "\(request.fromUser.displayName) (@\(request.fromUser.username)) wants to be your friend"),
                sound: "default"),
            chatter: .friendRequestReceived(requestId: request.id, fromUserId: request.fromUser.id))
    }

    /// An accepted request, pushed to its sender: "<accepter's name>" / "accepted your friend request".
    public static func friendRequestAccepted(requestId: FriendRequest.ID, accepter: User) -> PushPayload {
        PushPayload(
            aps: PushPayload.APS(
                alert: PushPayload.Alert(title: accepter.displayName, body: "accepted your friend request"), sound: "default"),
            chatter: .friendRequestAccepted(requestId: requestId, friendUserId: accepter.id))
    }

    /// The push `POST /developer/test-push` sends.
    public static func testPush() -> PushPayload {
        PushPayload(
            aps: PushPayload.APS(alert: PushPayload.Alert(title: "Chatter", body: "This is a test push."), sound: "default"),
            chatter: .unknown(type: "test", fields: [:]))
    }

    /// The alert body of a message: its text, or the label of its media kind.
    public static func body(of message: Message) -> String {
        switch message.kind {
        case .photo: return "📷 Photo"
        case .voice: return "🎤 Voice message"
        case .video: return "🎥 Video"
        case .document: return "📄 Document"
        default: return truncated(message.body ?? "")
        }
    }

    static func truncated(_ text: String) -> String {
        guard text.utf8.count > maxAlertBodyBytes else { return text }
        var result = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            guard bytes + size <= maxAlertBodyBytes - 3 else { break }
            result.append(character)
            bytes += size
        }
        return result + "…"
    }

    /// Whether `token` can be an APNs device token: 64 hexadecimal characters.
    public static func isWellFormedDeviceToken(_ token: String) -> Bool {
        token.utf8.count == 64 && token.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
        }
    }
}
