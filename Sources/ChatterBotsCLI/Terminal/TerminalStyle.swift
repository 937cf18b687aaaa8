#if canImport(Glibc)
import BotRuntime
import ChatterBots
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How screen lines become terminal text: with ANSI colours on an interactive terminal, plain otherwise (a pipe,
/// a file, a test), so logs and captures never carry escape codes.
public struct TerminalStyle: Sendable, Hashable {
    /// Whether lines get ANSI colour codes.
    public var usesColour: Bool

    public init(usesColour: Bool) {
        self.usesColour = usesColour
    }

    /// Plain text, no escape codes.
    public static let plain = TerminalStyle(usesColour: false)

    /// Colour when `fileDescriptor` is a terminal and the environment does not ask for none (`NO_COLOR`, or
    /// `TERM=dumb`).
    public static func detect(fileDescriptor: Int32 = 1, environment: [String: String]) -> TerminalStyle {
        let wantsPlain = environment["NO_COLOR"].map { !$0.isEmpty } ?? false || environment["TERM"] == "dumb"
        return TerminalStyle(usesColour: !wantsPlain && isatty(fileDescriptor) == 1)
    }

    /// The line as it is written, without the line break. Control characters a sender put in a message are
    /// shown as `?`, so no one can move the cursor or change colours on someone else's terminal.
    public func render(_ line: ScreenLine) -> String {
        let text = Self.printable(line.text)
        guard usesColour, let code = Self.colourCode(line.tone) else { return text }
        return "\u{1B}[\(code)m" + text + "\u{1B}[0m"
    }

    /// `text` with C0/C1 control characters (other than tab) and the bidirectional controls (marks, embeddings,
    /// overrides and isolates) replaced by `?`: a sender could otherwise move the terminal's cursor, or reorder the
    /// line so that it reads as someone else's (U+202E, or U+200F before digits and punctuation).
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { scalars.append(isControl(scalar) ? "?" : scalar) }
        return String(scalars)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar != "\t" && (scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || isBidirectionalControl(scalar))
    }

    /// U+061C (Arabic letter mark), U+200E and U+200F (left-to-right and right-to-left marks), U+202A to U+202E
    /// (embeddings and overrides), U+2066 to U+2069 (isolates).
    private static func isBidirectionalControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x061C || (0x200E...0x200F).contains(scalar.value)
            || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    private static func colourCode(_ tone: ScreenLine.Tone) -> String? {
        switch tone {
        case .message: nil
        case .ownMessage: "32"
        case .heading: "1"
        case .notice: "36"
        case .status: "2"
        case .error: "31"
        }
    }
}
