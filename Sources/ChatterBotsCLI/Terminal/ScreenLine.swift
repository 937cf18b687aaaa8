import ChatterBots

/// One line the terminal client prints, with what kind of line it is so a terminal can colour it.
///
/// The chat logic produces these and never touches a terminal, so tests read exactly what a person would see;
/// `TerminalStyle` decides how (or whether) to colour them.
public struct ScreenLine: Sendable, Hashable, CustomStringConvertible {
    /// What a line is about, which sets its colour on a terminal.
    public enum Tone: Sendable, Hashable {
        /// A message someone else wrote.
        case message
        /// A message the signed-in person wrote (from this device or another).
        case ownMessage
        /// A heading: a conversation opened, a list's title.
        case heading
        /// Information and answers to commands.
        case notice
        /// Passing state: typing, presence, receipts, connection changes.
        case status
        /// Something failed or a command was not understood; the text says what to do.
        case error
    }

    /// The file a message line carries (a photo, voice, video or document), for a display that can show it; a
    /// terminal shows only the text, `(photo) caption`.
    public struct Media: Sendable, Hashable {
        public var id: ChatterBots.Media.ID
        public var kind: Message.Kind

        public init(id: ChatterBots.Media.ID, kind: Message.Kind) {
            self.id = id
            self.kind = kind
        }
    }

    /// A line the person may want to type next about this line (a friend request's answers), for a display that
    /// offers it as a button; a terminal shows only the text, which says the same.
    public struct Suggestion: Sendable, Hashable {
        /// What the button says, e.g. `Accept`.
        public var label: String
        /// The line it types, e.g. `/accept bob`.
        public var line: String

        public init(label: String, line: String) {
            self.label = label
            self.line = line
        }

        /// Accept and decline for the friend request from `username`, named as `@username` so that they stay right
        /// as other requests are answered, and a username of digits is not read as a request's number.
        public static func answers(toFriendRequestFrom username: String) -> [Suggestion] {
            [Suggestion(label: "Accept", line: "/accept @\(username)"), Suggestion(label: "Decline", line: "/decline @\(username)")]
        }
    }

    /// The text, without colour codes or a line break.
    public var text: String
    public var tone: Tone
    /// The file of the message this line begins, if it carries one.
    public var media: Media?
    /// What the person may type next about this line.
    public var suggestions: [Suggestion]

    public init(_ text: String, tone: Tone = .notice, media: Media? = nil, suggestions: [Suggestion] = []) {
        self.text = text
        self.tone = tone
        self.media = media
        self.suggestions = suggestions
    }

    public var description: String { text }
}
