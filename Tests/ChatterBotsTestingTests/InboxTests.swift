@testable import ChatterBotsTesting
import Testing

/// The inbox a test user's observations wait in: nothing that arrives before a test asks is lost, `take` hands
/// each item out once, `first` leaves it for later waits.
@Suite("Inbox")
struct InboxTests {
    @Test func anItemThatArrivedBeforeTheWaitIsKeptForIt() async throws {
        let inbox = Inbox<Int>()
        inbox.deliver(1)
        inbox.deliver(2)
        #expect(try await inbox.take { $0 == 2 } == 2)
        #expect(inbox.takeAll { _ in true } == [1])
    }

    @Test func aTakenItemIsHandedOutOnce() async throws {
        let inbox = Inbox<Int>()
        inbox.deliver(7)
        #expect(try await inbox.take { $0 == 7 } == 7)
        #expect(inbox.takeAll { $0 == 7 }.isEmpty)
    }

    @Test func anItemFoundWithFirstStaysForTheNextWait() async throws {
        let inbox = Inbox<Int>()
        inbox.deliver(3)
        #expect(try await inbox.first { $0 >= 2 } == 3)
        #expect(try await inbox.first { $0 >= 3 } == 3)
        #expect(try await inbox.take { $0 == 3 } == 3)
    }

    @Test func anItemDeliveredLaterEndsTheWait() async throws {
        let inbox = Inbox<Int>()
        let wait = Task { try await inbox.take { $0 == 5 } }
        inbox.deliver(4)
        inbox.deliver(5)
        #expect(try await wait.value == 5)
        #expect(inbox.takeAll { _ in true } == [4])
    }

    @Test func cancellingAWaitEndsItWithCancellationError() async {
        let inbox = Inbox<Int>()
        let wait = Task { try await inbox.take { _ in true } }
        wait.cancel()
        await #expect(throws: CancellationError.self) { try await wait.value }
    }
}
