@testable import BotRuntime
import Foundation
import TestSupport

/// A stand-in for `BotSession` under the supervisor: it runs until shut down, or stops by itself with a reason,
/// and it can be given work that a shutdown must wait for. Each change of its state signals `changes`, and is reported
/// as `BotSession` reports it.
package actor StandInSession: StateReportingBot {
    package enum Script {
        /// Connects and runs until `shutdown(deadline:)`.
        case runUntilShutdown
        /// Stops by itself with `reason` after `delay`, never connecting.
        case stop(BotStopReason, after: Duration)
        /// Stays connecting until `goLive()`, then runs until `shutdown(deadline:)` (which also ends the wait).
        case liveWhenTold
    }

    package let name: String
    private let script: Script
    private var state: BotStatus.State = .starting { didSet { report() } }
    private var firstLiveAt: Date? { didSet { report() } }
    private var goLiveWaiters: [CheckedContinuation<Void, Never>] = []
    private var toldToGoLive = false
    private var connected = false { didSet { report() } }
    private var reporter: BotStateReporter?
    private var messagesIn = 0
    private var lastError: String?
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    private var shutdownRequested = false
    /// How long a shutdown takes to finish the running work.
    private let workOnShutdown: Duration
    /// Whether a shutdown's work goes on, whatever its deadline, until `finishShutdown()`: a bot that overruns.
    private let shutdownWaitsToBeTold: Bool
    private var toldToFinishShutdown = false
    private var finishShutdownWaiters: [CheckedContinuation<Void, Never>] = []
    package private(set) var shutdownDeadlines: [Duration] = []
    package private(set) var finishedWork = false
    private let changes: ChangeSignal?

    package init(
        _ name: String, _ script: Script = .runUntilShutdown, workOnShutdown: Duration = .zero,
        shutdownWaitsToBeTold: Bool = false, changes: ChangeSignal? = nil
    ) {
        self.name = name
        self.script = script
        self.workOnShutdown = workOnShutdown
        self.shutdownWaitsToBeTold = shutdownWaitsToBeTold
        self.changes = changes
    }

    package func reportStates(to reporter: BotStateReporter) {
        self.reporter = reporter
        report()
    }

    private func report() {
        reporter?.report(state, connected: connected, hasBeenLive: firstLiveAt != nil)
    }

    /// Lets the shutdowns of a stand-in made with `shutdownWaitsToBeTold` finish their work.
    package func finishShutdown() {
        toldToFinishShutdown = true
        let waiters = finishShutdownWaiters
        finishShutdownWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Lets a `.liveWhenTold` stand-in go live.
    package func goLive() {
        toldToGoLive = true
        let waiters = goLiveWaiters
        goLiveWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    package func run() async -> BotStopReason {
        switch script {
        case .runUntilShutdown, .liveWhenTold:
            if case .liveWhenTold = script, !toldToGoLive, !shutdownRequested {
                state = .connecting
                changes?.signal()
                await withCheckedContinuation { goLiveWaiters.append($0) }
                // Shut down before it went live: it stops without having been live.
                if !toldToGoLive {
                    state = .stopped
                    changes?.signal()
                    return .shutdown
                }
            }
            state = .live
            firstLiveAt = Date(timeIntervalSince1970: 1_800_000_000)
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

    package func shutdown(deadline: Duration) async {
        shutdownDeadlines.append(deadline)
        shutdownRequested = true
        state = .stopping
        changes?.signal()
        try? await Task.sleep(for: workOnShutdown)  // the scripted work a shutdown must wait for
        if shutdownWaitsToBeTold, !toldToFinishShutdown {
            await withCheckedContinuation { finishShutdownWaiters.append($0) }
        }
        finishedWork = true
        let waiters = stopWaiters + goLiveWaiters
        stopWaiters = []
        goLiveWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    package var status: BotStatus {
        var latency = HandlerLatencySummary()
        latency.record(seconds: 0.02)
        return BotStatus(
            name: name, state: state, connected: connected, since: Date(timeIntervalSince1970: 1_800_000_000),
            userId: nil, lastError: lastError, reconnects: 1, messagesIn: messagesIn, messagesOut: 2, outboxDepth: 0,
            handlerLatency: latency, stopReason: nil, firstLiveAt: firstLiveAt)
    }
}
