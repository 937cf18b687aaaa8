@testable import BotRuntime
import Foundation
import TestSupport

/// A stand-in for `BotSession` under the supervisor: it runs until shut down, or stops by itself with a reason,
/// and it can be given work that a shutdown must wait for. Each change of its state signals `changes`.
actor StandInSession: SupervisedBot {
    enum Script {
        /// Connects and runs until `shutdown(deadline:)`.
        case runUntilShutdown
        /// Stops by itself with `reason` after `delay`, never connecting.
        case stop(BotStopReason, after: Duration)
    }

    let name: String
    private let script: Script
    private var state: BotStatus.State = .starting
    private var connected = false
    private var messagesIn = 0
    private var lastError: String?
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    private var shutdownRequested = false
    /// How long a shutdown takes to finish the running work.
    private let workOnShutdown: Duration
    private(set) var shutdownDeadlines: [Duration] = []
    private(set) var finishedWork = false
    private let changes: ChangeSignal?

    init(_ name: String, _ script: Script = .runUntilShutdown, workOnShutdown: Duration = .zero, changes: ChangeSignal? = nil) {
        self.name = name
        self.script = script
        self.workOnShutdown = workOnShutdown
        self.changes = changes
    }

    func run() async -> BotStopReason {
        switch script {
        case .runUntilShutdown:
            state = .live
            connected = true
            messagesIn = 3
            changes?.signal()
            if !shutdownRequested {
                await withCheckedContinuation { stopWaiters.append($0) }
            }
            connected = false
            state = .stopped
            changes?.signal()
            return .shutdown
        case .stop(let reason, let delay):
            state = .signingIn
            try? await Task.sleep(for: delay)  // its scripted time signing in, not a wait for anything
            state = .stopped
            lastError = reason.description
            changes?.signal()
            return reason
        }
    }

    func shutdown(deadline: Duration) async {
        shutdownDeadlines.append(deadline)
        shutdownRequested = true
        state = .stopping
        changes?.signal()
        try? await Task.sleep(for: workOnShutdown)  // the scripted work a shutdown must wait for
        finishedWork = true
        let waiters = stopWaiters
        stopWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    var status: BotStatus {
        var latency = HandlerLatencySummary()
        latency.record(seconds: 0.02)
        return BotStatus(
            name: name, state: state, connected: connected, since: Date(timeIntervalSince1970: 1_800_000_000),
            userId: nil, lastError: lastError, reconnects: 1, messagesIn: messagesIn, messagesOut: 2, outboxDepth: 0,
            handlerLatency: latency, stopReason: nil)
    }
}

/// Polls `condition` until it holds or `timeout` passes (then the caller's expectation reports the failure): for
/// child processes and terminals, which signal nothing; in-process code is waited for with a `ChangeSignal`.
/// The bound is generous: a full parallel test run keeps both cores busy for its first 30-40 s (hundreds of tests
/// take 20-39 s of wall time then), and sign-in hashes passwords. A condition that holds returns at once.
func eventually(
    timeout: Duration = .seconds(90), _ condition: @Sendable () async -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let end = clock.now.advanced(by: timeout)
    while clock.now < end {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
