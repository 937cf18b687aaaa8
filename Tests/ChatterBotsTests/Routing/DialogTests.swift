import Foundation
import Testing

@testable import ChatterBots

/// What the booking dialog gathers.
private struct Booking: Codable, Sendable, Equatable {
    var time: String = ""
    var people = 2
}

/// "What time?" → "18:30" → "For how many?" → "4" → "A table for 4 at 18:30?" → "yes".
private let booking = Dialog("booking", initialValues: Booking(), timeout: .seconds(300))
    .step("time", ask: "What time? (like 18:30)") { answer, booking in
        guard let time = TimeOfDay(commandArgument: answer.text) else { return .retry("Please write a time like 18:30.") }
        booking.time = time.description
        return .next
    }
    .step("people", ask: "For how many?") { answer, booking in
        guard let people = Int(commandArgument: answer.text), (1...12).contains(people) else { return .retry(nil) }
        booking.people = people
        return .next
    }
    .step("confirm", ask: { "A table for \($0.people) at \($0.time)? (yes/no)" }) { answer, _ in
        switch Bool(commandArgument: answer.text) {
        case true?: .finish
        case false?: .goTo("time")
        case nil: .retry("Please answer yes or no.")
        }
    }
    .onFinish { message, booking in
        try await message.context.state.set(booking, for: StateKey<Booking>("booked"), in: .user(message.senderId))
        try await message.reply("Booked: \(booking.people) at \(booking.time).")
    }

private func makeRouter() -> MessageRouter {
    MessageRouter { router in
        router.dialog(booking)
        router.command("book", summary: "book a table") { try await $0.startDialog(booking) }
        router.command("ping") { try await $0.reply("pong") }
        router.fallback { try await $0.reply("fallback: \($0.text)") }
    }
}

@Suite("Router dialogs")
struct DialogTests {
    let context = RecordingBotContext()

    @Test func aDialogAsksEachStepAndFinishesWithWhatItGathered() async throws {
        let router = makeRouter()
        #expect(try await context.say("/book", to: router) == .command("book"))
        #expect(try await context.say("18:30", to: router) == .dialog("booking"))
        #expect(try await context.say("4", to: router) == .dialog("booking"))
        #expect(try await context.say("yes", to: router) == .dialog("booking"))
        #expect(context.replies == [
            "What time? (like 18:30)", "For how many?", "A table for 4 at 18:30? (yes/no)", "Booked: 4 at 18:30.",
        ])
        #expect(try await context.state.value(StateKey<Booking>("booked"), in: .user("U1")) == Booking(time: "18:30", people: 4))
        #expect(try await context.say("hello", to: router) == .fallback)
    }

    @Test func badInputIsAnsweredAndTheStepAskedAgain() async throws {
        let router = makeRouter()
        try await context.say("/book", to: router)
        try await context.say("half past six", to: router)
        try await context.say("18:30", to: router)
        try await context.say("forty", to: router)
        try await context.say("4", to: router)
        try await context.say("maybe", to: router)
        #expect(context.replies == [
            "What time? (like 18:30)", "Please write a time like 18:30.", "For how many?", "For how many?",
            "A table for 4 at 18:30? (yes/no)", "Please answer yes or no.",
        ])
    }

    @Test func aStepCanGoBackToChangeAnAnswer() async throws {
        let router = makeRouter()
        for text in ["/book", "18:30", "4", "no", "19:00", "3", "y"] { try await context.say(text, to: router) }
        #expect(context.replies.last == "Booked: 3 at 19:00.")
        #expect(context.replies.contains("A table for 3 at 19:00? (yes/no)"))
    }

    @Test func anExpiredDialogIsDroppedAndTheMessageRoutedNormally() async throws {
        let router = makeRouter()
        try await context.say("/book", to: router)
        context.advance(by: .seconds(299))
        try await context.say("18:30", to: router)
        context.advance(by: .seconds(300))
        #expect(try await context.say("4", to: router) == .fallback)
        #expect(context.replies.last == "fallback: 4")
        #expect(try await context.say("5", to: router) == .fallback)
        #expect(try await context.state.data(for: "chatterbots.dialog.C1", in: .user("U1")) == nil)
    }

    @Test func theTimeoutRestartsWithEveryQuestion() async throws {
        let router = makeRouter()
        try await context.say("/book", to: router)
        for text in ["18:30", "4"] {
            context.advance(by: .seconds(240))
            #expect(try await context.say(text, to: router) == .dialog("booking"))
        }
    }

    @Test func aCancelWordEndsTheDialog() async throws {
        let router = makeRouter()
        try await context.say("/book", to: router)
        #expect(try await context.say("  Cancel! ", to: router) == .dialog("booking"))
        #expect(context.replies.last == "OK, cancelled.")
        #expect(try await context.say("18:30", to: router) == .fallback)

        try await context.say("/book", to: router)
        #expect(try await context.say("/stop", to: router) == .dialog("booking"))
        #expect(try await context.say("18:30", to: router) == .fallback)
    }

    @Test func aRegisteredCommandLeavesTheDialogAndRuns() async throws {
        let router = makeRouter()
        try await context.say("/book", to: router)
        #expect(try await context.say("/ping", to: router) == .command("ping"))
        #expect(try await context.say("18:30", to: router) == .fallback)
        #expect(context.replies == ["What time? (like 18:30)", "pong", "fallback: 18:30"])
    }

    @Test func theDialogSurvivesANewRouterBecauseItsStateIsInTheContext() async throws {
        try await context.say("/book", to: makeRouter())
        try await context.say("18:30", to: makeRouter())
        try await context.say("4", to: makeRouter())
        #expect(try await context.say("yes", to: makeRouter()) == .dialog("booking"))
        #expect(context.replies.last == "Booked: 4 at 18:30.")
    }

    @Test func twoUsersRunTheirOwnDialogsSideBySide() async throws {
        let router = makeRouter()
        try await context.say("/book", from: "U1", in: "C1", to: router)
        try await context.say("/book", from: "U2", in: "C2", to: router)
        try await context.say("18:30", from: "U1", in: "C1", to: router)
        try await context.say("20:00", from: "U2", in: "C2", to: router)
        try await context.say("2", from: "U2", in: "C2", to: router)
        try await context.say("6", from: "U1", in: "C1", to: router)
        try await context.say("yes", from: "U1", in: "C1", to: router)
        try await context.say("yes", from: "U2", in: "C2", to: router)
        #expect(context.replies(in: "C1").last == "Booked: 6 at 18:30.")
        #expect(context.replies(in: "C2").last == "Booked: 2 at 20:00.")
    }

    @Test func aDialogBelongsToOneUserInOneConversation() async throws {
        let router = makeRouter()
        try await context.say("/book", from: "U1", in: "G1", to: router)
        #expect(try await context.say("18:30", from: "U2", in: "G1", to: router) == .fallback)
        #expect(try await context.say("18:30", from: "U1", in: "C1", to: router) == .fallback)
        #expect(try await context.say("18:30", from: "U1", in: "G1", to: router) == .dialog("booking"))
    }

    @Test func startingADialogAgainStartsItOver() async throws {
        let router = makeRouter()
        for text in ["/book", "18:30", "/book", "19:00", "2", "yes"] { try await context.say(text, to: router) }
        #expect(context.replies.last == "Booked: 2 at 19:00.")
    }

    @Test func startingAnUnregisteredDialogFailsAtOnce() async throws {
        let router = MessageRouter { router in
            router.command("book") { try await $0.startDialog(booking) }
        }
        await #expect(throws: RoutingError.unregisteredDialog("booking")) { try await context.say("/book", to: router) }
        #expect(context.sentMessages.isEmpty)
    }

    @Test func stateThatNoLongerFitsTheDialogIsDroppedNotFatal() async throws {
        try await context.say("/book", to: makeRouter())
        let renamed = Dialog("booking", initialValues: Booking())
            .step("when", ask: "When?") { _, _ in .finish }
        let router = MessageRouter { router in
            router.dialog(renamed)
            router.fallback { try await $0.reply("fallback") }
        }
        #expect(try await context.say("18:30", to: router) == .fallback)
        #expect(context.logRecords.contains { $0.message == "dialog dropped: its step no longer exists" })
        #expect(try await context.state.data(for: "chatterbots.dialog.C1", in: .user("U1")) == nil)
    }

    @Test func startValuesCanBeGivenAndADialogWithoutTimeoutWaits() async throws {
        let quick = Dialog("quick", initialValues: Booking(), timeout: nil)
            .step("confirm", ask: { "Again for \($0.people) at \($0.time)?" }) { _, _ in .finish }
            .onFinish { message, booking in try await message.reply("Booked \(booking.time) again.") }
        let router = MessageRouter { router in
            router.dialog(quick)
            router.command("again") { try await $0.startDialog(quick, with: Booking(time: "12:00", people: 3)) }
        }
        try await context.say("/again", to: router)
        context.advance(by: .seconds(86_400 * 30))
        #expect(try await context.say("sure", to: router) == .dialog("quick"))
        #expect(context.replies == ["Again for 3 at 12:00?", "Booked 12:00 again."])
    }
}
