import ChatterBots
import Foundation
import Synchronization

/// A bot kind's `make` run as crash-isolated work, as a handler is: marked in the process's `InFlightTable` as its
/// bot's lifecycle work `make`, and never beside a crash suspect's turn at the `SuspectGate`. A trap in the bot
/// author's code there is then blamed on that bot at the next start, which runs its `make` alone, and once it has
/// crashed the process `attempts` times stops that bot as crashing while the others run (`QuarantineRules`).
///
/// The `make` runs on a thread of its own (`MakeThreads`), so that one that blocks stalls no session, and has the
/// handler timeout to return: one that has not by then is given up (its bot does not start) and gives its share of
/// the gate back, or, a suspect, its turn alone once the grace after its timeout is over (`SuspectTurnRules`). It
/// stays marked in the table until it returns, so that a `make` that kills the process late is still blamed; its
/// kind is not called again meanwhile (`MakeThreadRules`).
struct BotMaking: Sendable {
    /// The work key and handler name of a bot's `make` in the in-flight table and the quarantine.
    static let workKey = "make"

    /// How a `make` ended.
    enum Outcome: Sendable {
        /// It returned the bot.
        case made(any Bot)
        /// It threw: the kind refused the bot's options.
        case refused(any Error)
        /// It did not return within the handler timeout.
        case timedOut(TimedOut)
        /// It was not called: an earlier make of the kind still runs past its timeout (`readmission` then tells
        /// when it has returned), or no thread is left.
        case notCalled(MakeThreadRules.Refusal, readmission: MakeThreads.Readmission?)
    }

    /// A kind's `make` that did not return within the handler timeout: the bot does not start, even when the make
    /// returns later, during a crash suspect's grace (the grace is there to blame a death, not to give more time).
    struct TimedOut: Error, Equatable, CustomStringConvertible {
        /// The bot's kind.
        var kind: String
        /// The handler timeout it had.
        var timeout: Duration
        /// Whether it returned after its timeout, during the crash suspect's grace.
        var returnedLate = false

        var description: String {
            guard !returnedLate else {
                return "kind \"\(kind)\" did not make the bot within \(timeout) (its make returned only later, during "
                    + "the crash suspect's grace): fix the kind's make, or the options it reads in bots.json, then reload"
            }
            return "kind \"\(kind)\" did not make the bot within \(timeout) (its make has not returned, and may still "
                + "run): fix the kind's make, or the options it reads in bots.json, then reload (the kind's make is not "
                + "called again until this one returns: restart the process if it never does)"
        }
    }

    /// How a `make` ended, and whether it passed as a crash suspect.
    struct Made: Sendable {
        var outcome: Outcome
        /// Nil unless it was a suspect and passed; true when it passed at the end of its grace, its code still running.
        var passedAfterGrace: Bool?
    }

    private let table: InFlightTable?
    private let gate: SuspectGate
    private let threads: MakeThreads
    private let clock: any ChatterClock
    private let timeout: Duration

    /// Makes bots with the in-flight table, gate, clock and handler timeout of `environment`.
    init(environment: BotRuntimeEnvironment) {
        self.table = environment.inFlightTable
        self.gate = environment.suspectGate
        self.threads = environment.makeThreads
        self.clock = environment.clock
        self.timeout = environment.handlerTimeout
    }

    /// `member`'s bot: the one made already, else one made now by its kind. `alone` when its `make` is a crash
    /// suspect: it then waits until nothing else runs in the process. Nil when the task was cancelled (its session
    /// stops) before the make returned or was given up.
    func make(_ member: BotLineup.Member, alone: Bool = false, log: SessionLog) async -> Made? {
        if let bot = member.bot { return Made(outcome: .made(bot)) }
        guard alone ? await gate.enter() : await gate.enterAsOther() else { return nil }
        let gate = gate
        let turn = SuspectGate.Turn { alone ? gate.leave() : gate.leaveAsOther() }
        guard !Task.isCancelled else {
            turn.end()
            return nil
        }
        let call = Call(clock: clock)
        let (table, clock) = (table, clock)
        let (bot, kind) = (member.configuration.name, member.configuration.kind)
        let started = await threads.start(kind: kind, bot: bot, timeout: timeout, clock: clock) {
            let slot = table?.claim(InFlightTable.Record(
                bot: bot, handler: Self.workKey, trace: Self.workKey, key: Self.workKey, summary: "kind \(kind)",
                startedAt: clock.now))
            let result = Result { try member.makeBot() }
            if let slot { table?.release(slot) }
            call.returned(result)
        }
        let deadline: Date
        switch started {
        case .started(let end)?:
            deadline = end
        case .refused(let refusal, let readmission)?:
            turn.end()
            log.error("make not called: \(refusal)", trace: Self.workKey)
            return Made(outcome: .notCalled(refusal, readmission: readmission))
        case nil:
            turn.end()
            return nil
        }
        let timedOut = TimedOut(kind: kind, timeout: timeout)
        guard alone else {
            await call.wait(until: deadline)
            turn.end()
            if let result = call.result { return Made(outcome: Self.outcome(of: result)) }
            guard !Task.isCancelled else { return nil }
            log.error("make did not return within \(timeout): the bot does not start", trace: Self.workKey)
            return Made(outcome: .timedOut(timedOut))
        }
        let grace = SuspectTurnRules.grace(after: timeout)
        let suspect = SuspectTurn(key: Self.workKey, grace: grace, gateTurn: turn)
        var wakeAt = deadline
        var isPastTimeout = false
        var passedAfterGrace: Bool?
        while suspect.hasTurn {
            await call.wait(until: wakeAt)
            let event: SuspectTurnRules.Event
            if call.result != nil {
                event = .returned(cancelled: false)
            } else if Task.isCancelled {
                event = .stopped
            } else if clock.now < wakeAt {
                continue
            } else {
                event = isPastTimeout ? .graceOver : .timedOut
            }
            for action in suspect.handle(event, now: clock.now) {
                switch action {
                case .scheduleGraceEnd(let end):
                    log.error("make did not return within \(timeout): the bot does not start, and the crash suspect "
                        + "keeps its turn alone for \(grace) more", trace: Self.workKey)
                    isPastTimeout = true
                    wakeAt = end
                case .pass(let afterGrace):
                    passedAfterGrace = afterGrace
                case .endTurn, .returnedAfterStop:
                    break
                }
            }
        }
        if !isPastTimeout, let result = call.result {
            return Made(outcome: Self.outcome(of: result), passedAfterGrace: passedAfterGrace)
        }
        // Given up at its timeout, it passed (its code returned, or its grace is over); nil when its session stopped
        // first.
        guard let afterGrace = passedAfterGrace else { return nil }
        var late = timedOut
        late.returnedLate = !afterGrace
        return Made(outcome: .timedOut(late), passedAfterGrace: afterGrace)
    }

    private static func outcome(of result: Result<any Bot, any Error>) -> Outcome {
        switch result {
        case .success(let bot): .made(bot)
        case .failure(let error): .refused(error)
        }
    }

    /// A `make` running on its thread: its result once it returned, and the wake-up of the task that waits for it.
    private final class Call: Sendable {
        private let outcome = Mutex<Result<any Bot, any Error>?>(nil)
        private let signal: WakeSignal

        init(clock: any ChatterClock) {
            self.signal = WakeSignal(clock: clock)
        }

        func returned(_ result: Result<any Bot, any Error>) {
            outcome.withLock { $0 = result }
            signal.wake()
        }

        var result: Result<any Bot, any Error>? { outcome.withLock { $0 } }

        /// Waits until the `make` returned, `deadline` passed, or the task is cancelled.
        func wait(until deadline: Date) async {
            await signal.wait(until: deadline)
        }
    }
}
