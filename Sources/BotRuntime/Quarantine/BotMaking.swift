import ChatterBots
import Foundation

/// A bot kind's `make` run as crash-isolated work, as a handler is: marked in the process's `InFlightTable` as its
/// bot's lifecycle work `make`, and never beside a crash suspect's turn at the `SuspectGate`. A trap in the bot
/// author's code there is then blamed on that bot at the next start, which runs its `make` alone, and once it has
/// crashed the process `attempts` times stops that bot as crashing while the others run (`QuarantineRules`).
struct BotMaking: Sendable {
    /// The work key and handler name of a bot's `make` in the in-flight table and the quarantine.
    static let workKey = "make"

    private let table: InFlightTable?
    private let gate: SuspectGate
    private let clock: any ChatterClock

    /// Makes bots with the in-flight table, gate and clock of `environment`.
    init(environment: BotRuntimeEnvironment) {
        self.table = environment.inFlightTable
        self.gate = environment.suspectGate
        self.clock = environment.clock
    }

    /// `member`'s bot: the one made already, else one made now by its kind. `alone` when its `make` is a crash
    /// suspect: it then waits until nothing else runs in the process. Nil when the task was cancelled (its session
    /// stops) before the make ran.
    func make(_ member: BotLineup.Member, alone: Bool = false) async -> Result<any Bot, any Error>? {
        if let bot = member.bot { return .success(bot) }
        guard alone ? await gate.enter() : await gate.enterAsOther() else { return nil }
        defer { alone ? gate.leave() : gate.leaveAsOther() }
        guard !Task.isCancelled else { return nil }
        let slot = table?.claim(InFlightTable.Record(
            bot: member.configuration.name, handler: Self.workKey, trace: Self.workKey, key: Self.workKey,
            summary: "kind \(member.configuration.kind)", startedAt: clock.now))
        defer { if let slot { table?.release(slot) } }
        return Result { try member.makeBot() }
    }
}
