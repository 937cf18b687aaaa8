@testable import BotRuntime
import Glibc
import TestSupport
import Testing

@Suite("shutdown signals")
struct ShutdownSignalTests {
    @Test func theFirstSignalBeginsAGracefulShutdownAndASecondExitsAtOnceWithItsShellCode() {
        var state = ShutdownSignalState()
        #expect(state.receive(SIGTERM) == .beginShutdown(signal: SIGTERM))
        #expect(state.receive(SIGINT) == .exitImmediately(code: 130))
        #expect(state.receive(SIGTERM) == .exitImmediately(code: 143))
    }

    @Test func aShutdownRequestReleasesWaitersBeforeAndAfterIt() async throws {
        let request = ShutdownRequest()
        let early = Task { await request.wait() }
        #expect(!request.isRequested)
        request.request()
        try await value(of: early, within: .hangGuard, "the early waiter to be released")
        try await withDeadline(.hangGuard, "a wait after the request to return") { await request.wait() }
        #expect(request.isRequested)
    }

    @Test func aCancelledWaitReturnsWithoutARequest() async throws {
        let request = ShutdownRequest()
        let waiter = Task { await request.wait() }
        waiter.cancel()
        try await value(of: waiter, within: .hangGuard, "the cancelled wait to return")
        #expect(!request.isRequested)
    }
}
