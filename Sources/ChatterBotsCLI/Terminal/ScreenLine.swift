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

    /// The text, without colour codes or a line break.
    public var text: String
    public var tone: Tone
    /// The file of the message this line begins, if it carries one.
    public var media: Media?

    public init(_ text: String, tone: Tone = .notice, media: Media? = nil) {
        self.text = text
        self.tone = tone
        self.media = media
    }

    public var description: String { text }
}
