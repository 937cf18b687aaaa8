/// What `ChatScreen` returns for one input: the lines to print, in order, and the actions to carry out.
public struct ChatUpdate: Sendable, Hashable {
    public var lines: [ScreenLine]
    public var actions: [ChatAction]

    public init(lines: [ScreenLine] = [], actions: [ChatAction] = []) {
        self.lines = lines
        self.actions = actions
    }

    /// The lines' text, without tones: what a plain terminal shows.
    public var text: [String] { lines.map(\.text) }
}
