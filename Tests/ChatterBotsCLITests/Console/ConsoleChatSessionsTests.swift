@testable import ChatterBotsCLI
import Testing

/// Pages of one account share its chat: each line names the conversation its page shows, and the chat opens it
/// again when another page opened another one since.
@Suite("the console's shared chats")
struct ConsoleChatSessionsTests {
    @Test func aLineForTheOpenConversationGoesAsItIs() {
        let typed = ConsoleChatSessions.lines(typing: "hello", with: "echo_bot", openWith: "echo_bot")
        #expect(typed.lines == ["hello"] && typed.openWith == "echo_bot")
    }

    @Test func aLineFromAPageShowingAnotherConversationOpensItFirst() {
        let typed = ConsoleChatSessions.lines(typing: "hello", with: "echo_bot", openWith: "reminder_bot")
        #expect(typed.lines == ["/dm echo_bot", "hello"] && typed.openWith == "echo_bot")
    }

    @Test func aDirectMessageCommandSaysWhatIsOpenAndOpenForgetsIt() {
        #expect(ConsoleChatSessions.lines(typing: "/dm reminder_bot", with: "echo_bot", openWith: nil).openWith == "reminder_bot")
        #expect(ConsoleChatSessions.lines(typing: "/open 2", with: "echo_bot", openWith: "echo_bot").openWith == nil)
    }

    @Test func otherCommandsGoAsTheyAreAndAnEscapedSlashIsAMessage() {
        #expect(ConsoleChatSessions.lines(typing: "/friends", with: "echo_bot", openWith: "reminder_bot").lines == ["/friends"])
        #expect(ConsoleChatSessions.lines(typing: "//shrug", with: "echo_bot", openWith: nil).lines == ["/dm echo_bot", "//shrug"])
        #expect(ConsoleChatSessions.lines(typing: "/react 👍", with: "echo_bot", openWith: "reminder_bot").lines
            == ["/dm echo_bot", "/react 👍"], "a reaction is to the page's conversation")
    }

    @Test func aLineWithoutAConversationGoesAsItIs() {
        let typed = ConsoleChatSessions.lines(typing: "hello", with: nil, openWith: "echo_bot")
        #expect(typed.lines == ["hello"] && typed.openWith == "echo_bot")
    }
}
