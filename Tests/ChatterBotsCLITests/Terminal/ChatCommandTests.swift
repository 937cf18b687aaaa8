@testable import ChatterBotsCLI
@testable import BotRuntime
import Testing

@Suite("ChatCommand")
struct ChatCommandTests {
    @Test func plainTextIsSentExactlyAsTyped() throws {
        #expect(try ChatCommand(parsing: "  see you at 8?  ") == .say("  see you at 8?  "))
    }

    @Test func aDoubleSlashSendsTheLineFromItsSecondSlash() throws {
        #expect(try ChatCommand(parsing: "//shrug") == .say("/shrug"))
    }

    @Test func aBlankLineDoesNothing() throws {
        #expect(try ChatCommand(parsing: "   ") == .nothing)
        #expect(try ChatCommand(parsing: "") == .nothing)
    }

    @Test func commandsAreCaseInsensitiveAndTolerateSpaces() throws {
        #expect(try ChatCommand(parsing: " /LIST ") == .list)
        #expect(try ChatCommand(parsing: "/friends") == .friends)
        #expect(try ChatCommand(parsing: "/help") == .help)
        #expect(try ChatCommand(parsing: "/quit") == .quit)
        #expect(try ChatCommand(parsing: "/exit") == .quit)
    }

    @Test func openTakesANumberOrAName() throws {
        #expect(try ChatCommand(parsing: "/open 2") == .open(.number(2)))
        #expect(try ChatCommand(parsing: "/open   Team lunch ") == .open(.name("Team lunch")))
    }

    @Test func openWithoutAnArgumentSaysWhatItNeeds() {
        #expect(throws: ChatCommandError.missingArgument(command: "/open", expected: "a number from /list or a name")) {
            try ChatCommand(parsing: "/open")
        }
    }

    @Test func numbersStartAtOne() {
        #expect(throws: ChatCommandError.invalidNumber(command: "/open", "0")) { try ChatCommand(parsing: "/open 0") }
        #expect(throws: ChatCommandError.invalidNumber(command: "/accept", "-1")) { try ChatCommand(parsing: "/accept -1") }
    }

    @Test func directMessageTakesAUsernameWithOrWithoutAt() throws {
        #expect(try ChatCommand(parsing: "/dm bob") == .directMessage(username: "bob"))
        #expect(try ChatCommand(parsing: "/dm @bob") == .directMessage(username: "bob"))
        #expect(throws: ChatCommandError.self) { try ChatCommand(parsing: "/dm") }
    }

    @Test func acceptTakesARequestNumber() throws {
        #expect(try ChatCommand(parsing: "/accept 3") == .accept(.number(3)))
        #expect(try ChatCommand(parsing: "/decline 2") == .decline(.number(2)))
        #expect(try ChatCommand(parsing: "/accept @bob") == .accept(.username("bob")))
        #expect(try ChatCommand(parsing: "/decline bob") == .decline(.username("bob")))
        #expect(throws: ChatCommandError.invalidNumber(command: "/decline", "0")) { try ChatCommand(parsing: "/decline 0") }
        #expect(try ChatCommand(parsing: "/react 👍") == .react(emoji: "👍"))
        #expect(try ChatCommand(parsing: "/cancel") == .cancel)
        #expect(throws: ChatCommandError.self) { try ChatCommand(parsing: "/react") }
    }

    @Test func anUnknownCommandPointsToHelpAndToTheEscape() {
        #expect(throws: ChatCommandError.unknownCommand("/shrug")) { try ChatCommand(parsing: "/shrug") }
        let text = ChatCommandError.unknownCommand("/shrug").description
        #expect(text.contains("/help") && text.contains("//"))
    }
}
