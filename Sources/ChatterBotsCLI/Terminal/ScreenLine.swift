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

    /// The text, without colour codes or a line break.
    public var text: String
    public var tone: Tone

    public init(_ text: String, tone: Tone = .notice) {
        self.text = text
        self.tone = tone
    }

    public var description: String { text }
}
