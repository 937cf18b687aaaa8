import Foundation

/// A registered dialog with its `Values` type erased, so one router can hold dialogs of different types.
struct DialogRunner: Sendable {
    var name: String
    var cancelWords: Set<String>
    var cancelReply: String?
    var resume: @Sendable (ActiveDialog, RoutedMessage) async throws -> Bool
    /// The middleware of the included routers that registered the dialog, outermost first; its answers run inside.
    var middleware: [any MessageMiddleware] = []

    /// `text` as compared with cancel words: trimmed, lowercased, without trailing punctuation.
    static func normalized(_ text: String) -> String {
        var text = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
        while let last = text.last, last.isPunctuation { text = text.dropLast() }
        return String(text)
    }
}
