import ChatterSandbox
import Testing

/// When the sandbox's listener may restart, as a plain value.
@Suite("Sandbox listener lifecycle")
struct SandboxListenerLifecycleTests {
    @Test func aRestartClosesThenWaitsTheDowntimeThenListensAgain() throws {
        var lifecycle = SandboxListenerLifecycle()
        try lifecycle.restartRequested()
        #expect(lifecycle.phase == .closing)
        lifecycle.closed()
        #expect(lifecycle.phase == .down)
        #expect(lifecycle.shouldListenAgain())
        let kept = lifecycle.listened()
        #expect(kept)
        #expect(lifecycle.phase == .listening)
    }

    @Test(arguments: [SandboxListenerLifecycle.Phase.closing, .down])
    func aRestartWhileOneIsUnderWayIsRefused(_ reached: SandboxListenerLifecycle.Phase) throws {
        var lifecycle = SandboxListenerLifecycle()
        try lifecycle.restartRequested()
        if reached == .down { lifecycle.closed() }
        #expect(throws: SandboxRestartError.alreadyRestarting) { try lifecycle.restartRequested() }
        #expect(lifecycle.phase == reached)
    }

    @Test func aRestartAfterShutdownIsRefused() {
        var lifecycle = SandboxListenerLifecycle()
        lifecycle.shutdownRequested()
        #expect(throws: SandboxRestartError.shutDown) { try lifecycle.restartRequested() }
    }

    @Test func aShutdownDuringTheDowntimeMeansNotListeningAgain() throws {
        var lifecycle = SandboxListenerLifecycle()
        try lifecycle.restartRequested()
        lifecycle.closed()
        lifecycle.shutdownRequested()
        #expect(!lifecycle.shouldListenAgain())
        let kept = lifecycle.listened()
        #expect(!kept, "a listener bound meanwhile is not kept")
        #expect(lifecycle.phase == .shutDown)
    }

    @Test func aShutdownWhileClosingKeepsTheListenerShutDown() throws {
        var lifecycle = SandboxListenerLifecycle()
        try lifecycle.restartRequested()
        lifecycle.shutdownRequested()
        lifecycle.closed()
        #expect(lifecycle.phase == .shutDown)
    }

    @Test func afterFailingToListenAnotherRestartMayTry() throws {
        var lifecycle = SandboxListenerLifecycle()
        try lifecycle.restartRequested()
        lifecycle.closed()
        lifecycle.listenFailed()
        #expect(lifecycle.phase == .notListening)
        try lifecycle.restartRequested()
        #expect(lifecycle.phase == .closing)
    }
}
