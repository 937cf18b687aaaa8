@testable import ChatterBotsCLI
@testable import BotRuntime
import Foundation
import Testing

@Suite("TerminalStyle")
struct TerminalStyleTests {
    @Test func plainOutputHasNoEscapeCodes() {
        let line = ScreenLine("boom", tone: .error)
        #expect(TerminalStyle.plain.render(line) == "boom")
    }

    @Test func colourWrapsTheLineAndResetsAfterIt() {
        let rendered = TerminalStyle(usesColour: true).render(ScreenLine("boom", tone: .error))
        #expect(rendered == "\u{1B}[31mboom\u{1B}[0m")
    }

    @Test func othersMessagesKeepTheTerminalsOwnColour() {
        #expect(TerminalStyle(usesColour: true).render(ScreenLine("[14:03] bob: hi", tone: .message)) == "[14:03] bob: hi")
    }

    @Test func controlCharactersFromASenderCannotDriveTheTerminal() {
        let hostile = ScreenLine("[14:03] bob: \u{1B}[2Jgotcha\u{07}\u{9B}", tone: .message)
        #expect(TerminalStyle(usesColour: true).render(hostile) == "[14:03] bob: ?[2Jgotcha??")
    }

    @Test func bidirectionalOverridesFromASenderCannotReverseTheLine() {
        let hostile = ScreenLine("[14:03] bob: \u{202E}ecila :\u{2066}x\u{2069}", tone: .message)
        #expect(TerminalStyle(usesColour: false).render(hostile) == "[14:03] bob: ?ecila :?x?")
        #expect(TerminalStyle(usesColour: false).render(ScreenLine("[14:03] bob: שלום world", tone: .message))
            == "[14:03] bob: שלום world", "right-to-left text itself is left alone")
    }

    @Test func bidirectionalMarksFromASenderCannotReorderTheLine() {
        let hostile = ScreenLine("[14:03] bob: \u{200F}12:00\u{200E} \u{061C}x", tone: .message)
        #expect(TerminalStyle(usesColour: false).render(hostile) == "[14:03] bob: ?12:00? ?x")
    }

    @Test func noColourWhenTheEnvironmentAsksForNone() {
        #expect(TerminalStyle.detect(fileDescriptor: 1, environment: ["NO_COLOR": "1"]) == .plain)
        #expect(TerminalStyle.detect(fileDescriptor: 1, environment: ["TERM": "dumb"]) == .plain)
    }

    @Test func noColourWhenOutputIsNotATerminal() throws {
        let pipe = Pipe()
        let style = TerminalStyle.detect(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor, environment: [:])
        #expect(style == .plain)
    }
}
