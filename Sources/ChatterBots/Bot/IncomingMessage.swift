/// A message delivered to `Bot.onMessage`. Reads like the `Message` it wraps (`message.seq`,
/// `message.senderId`, …) and adds `text`.
@dynamicMemberLookup
public struct IncomingMessage: Hashable, Sendable {
    public var message: Message

    public init(_ message: Message) { self.message = message }

    /// The body, or the empty string for media without a caption and deleted messages.
    public var text: String { message.body ?? "" }

    public subscript<Value>(dynamicMember keyPath: KeyPath<Message, Value>) -> Value {
        message[keyPath: keyPath]
    }
}
