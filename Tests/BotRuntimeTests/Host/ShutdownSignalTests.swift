@testable import BotRuntime
import Glibc
import Testing

@Suite("shutdown signals")
struct ShutdownSignalTests {
    @Test func theFirstSignalBeginsAGracefulShutdownAndASecondExitsAtOnceWithItsShellCode() {
        var state = ShutdownSignalState()
        #expect(state.receive(SIGTERM) == .beginShutdown(signal: SIGTERM))
        #expect(state.receive(SIGINT) == .exitImmediately(code: 130))
        #expect(state.receive(SIGTERM) == .exitImmediately(code: 143))
    }

    @Test func aShutdownRequestReleasesWaitersBeforeAndAfterIt() async {
        let request = ShutdownRequest()
        let early = Task { await request.wait() }
        #expect(!request.isRequested)
        request.request()
        await early.value
        await request.wait()
        #expect(request.isRequested)
    }

    @Test func aCancelledWaitReturnsWithoutARequest() async {
        let request = ShutdownRequest()
        let waiter = Task { await request.wait() }
        waiter.cancel()
        await waiter.value
        #expect(!request.isRequested)
    }
}
