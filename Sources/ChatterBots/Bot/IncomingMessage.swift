/// A message delivered to `Bot.onMessage`. Reads like the `Message` it wraps (`message.seq`,
/// `message.senderId`, …) and adds `text`.
@dynamicMemberLookup
public struct IncomingMessage: Hashable, Sendable {
    /// The message as the service sent it.
    public var message: Message

    /// Wraps `message` for a handler (and for tests that deliver messages by hand).
    public init(_ message: Message) { self.message = message }

    /// The body, or the empty string for media without a caption and deleted messages.
    public var text: String { message.body ?? "" }

    /// Any property of the wrapped `Message`, so `incoming.seq` reads like `incoming.message.seq`.
    public subscript<Value>(dynamicMember keyPath: KeyPath<Message, Value>) -> Value {
        message[keyPath: keyPath]
    }
}
