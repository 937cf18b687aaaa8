import ChatterBots
import Foundation

/// Runs many bots in one process, each isolated from the others: a bot that stops (a refused password, close
/// 4002, a revoked device) is logged with what to fix and the others go on. `shutdown(deadline:)` stops them all
/// gracefully; `run()` returns when every bot has stopped.
///
/// ```swift
/// let supervisor = BotSupervisor(bots: sessions, log: log)
/// async let outcome = supervisor.run()
/// // … on SIGTERM:
/// await supervisor.shutdown(deadline: .seconds(10))
/// ```
public actor BotSupervisor {
    private struct Member {
        /// Names the member for its run task, whatever members come and go meanwhile.
        let id: Int
        /// Its place in the configuration order, which its successor takes over.
        let rank: Int
        let bot: any SupervisedBot
        var name: String
        var stopReason: BotStopReason?
        /// Whether `/readyz` waits for it to be live (`FleetReadiness`): a bot of the start, or the successor of one
        /// that had not been live yet.
        var isAwaited: Bool
    }

    private var members: [Member]
    private let log: LogSink
    private var isShuttingDown = false
    private var shutdownDeadline: Duration?
    private var hasRun = false
    private var nextMemberID = 0
    /// The members added while `run()` runs, handed to its task group (which owns every bot's task).
    private var additions: AsyncStream<Member>.Continuation?
    /// Members whose run task has not returned yet.
    private var running: Set<Int> = []
    /// Members asked to stop by `remove`/`replace` whose `shutdown(deadline:)` has not returned yet.
    private var shutdownsUnderWay: Set<Int> = []
    /// Who waits for a member removed or replaced to have stopped: true once it has, false when it gave up.
    private var stopWaiters: [Int: [CheckedContinuation<Bool, Never>]] = [:]
    /// Members removed on purpose: their stop is not a failure, and they leave the list once stopped.
    private var removing: Set<Int> = []
    /// The members that take the place of those being replaced, by the id of the one they replace.
    private var successors: [Int: Member] = [:]
    /// Membership changes under way (a reload's): until they end, the run does not end for want of bots.
    private var membershipChanges = 0
    /// Whether `run()` waits for bots to be added when it has none (a shard with no bot yet), until a shutdown.
    private var waitsWhenEmpty = false
    /// The handler durations of the bots removed or replaced: the process-wide histogram keeps them, so that it
    /// never goes down when the fleet changes.
    private var retiredHandlerLatency = HandlerLatencySummary()
    /// Bots that left the list whose durations are being read into `retiredHandlerLatency`, by member id.
    private var retiringBots: [Int: any SupervisedBot] = [:]
    /// What `/healthz` and `/readyz` count, kept as the bots change state.
    private let board = FleetStateBoard()
    /// Where each member is in `members`, by id.
    private var positions: [Int: Int] = [:]
    /// Members that do not report their state changes (not `StateReportingBot`): asked on each probe instead.
    private var unreported: Set<Int> = []
    /// Whether every member's name has been read (the members given at `init` are named by `run()`).
    private var everyMemberNamed = false
    /// The members stopped that wait to start again by themselves (`RestartableBot`), by id: their wait, which a
    /// reload that removes them or a shutdown cancels.
    private var restarts: [Int: Task<Void, Never>] = [:]
    /// The successors of members whose wait ended during a membership change, by the member's id: they start once
    /// it ends, unless it removed or replaced the member.
    private var readmitted: [Int: any SupervisedBot] = [:]
    /// How long after the start of `run()` `/readyz` waits at most for the bots it started with; nil: until each
    /// has been live (or stopped on its own).
    private let readinessTimeout: Duration?
    /// The time of the readiness bound, and of its timer.
    private let clock: any ChatterClock
    /// Ends the wait of `/readyz` at the bound, to log the bots no longer waited for.
    private var readinessTimer: Task<Void, Never>?

    /// Supervises `bots` (in this order in statuses and metrics). Nothing runs before `run()`. With a
    /// `readinessTimeout`, `/readyz` stops waiting for the bots not live yet that long after `run()` began, on `clock`.
    public init(
        bots: [any SupervisedBot], log: LogSink, readinessTimeout: Duration? = nil,
        clock: any ChatterClock = SystemClock()
    ) {
        self.members = bots.enumerated().map {
            Member(id: $0.offset, rank: $0.offset, bot: $0.element, name: "", stopReason: nil, isAwaited: true)
        }
        self.nextMemberID = bots.count
        self.log = log
        self.readinessTimeout = readinessTimeout
        self.clock = clock
        everyMemberNamed = bots.isEmpty
        for member in members {
            positions[member.id] = member.id
            if !(member.bot is any StateReportingBot) { unreported.insert(member.id) }
        }
        let members = members
        board.update { tallies in
            for member in members {
                tallies.health.join(member.id, rank: member.rank)
                tallies.readiness.join(member.id, rank: member.rank, name: "", isAwaited: true)
            }
        }
    }

    /// Runs every bot concurrently and returns when all have stopped, either because `shutdown(deadline:)` was
    /// called or each stopped on its own. Cancelling the calling task shuts the bots down with a 10 s deadline.
    /// Calling it again returns the first run's outcome at once.
    public func run() async -> SupervisorOutcome {
        guard !hasRun else { return outcome }
        hasRun = true
        if isShuttingDown {
            for index in members.indices { recordStop(of: index, .shutdown) }
            return outcome
        }
        if let readinessTimeout { boundReadinessWait(readinessTimeout) }
        // From here on a bot added (by a reload) joins the task group through `additions`; the first ones too.
        let (added, continuation) = AsyncStream.makeStream(of: Member.self)
        additions = continuation
        let initial = Set(members.map(\.id))
        running = initial
        await nameEveryMember()
        // Those removed while the names were read were never started: they are not waited for.
        let starting = members.filter { initial.contains($0.id) }
        for id in initial.subtracting(starting.map(\.id)) {
            running.remove(id)
            settleStop(of: id)
        }
        for member in starting { continuation.yield(member) }
        if starting.isEmpty && !waitsWhenEmpty && running.isEmpty {
            continuation.finish()
            additions = nil
        }
        let names = starting.map(\.name)
        log.log(.info, "starting \(names.count) bot\(names.count == 1 ? "" : "s")", ["bots": NameSample(names).joined(separator: ",")])
        await withTaskCancellationHandler {
            await withTaskGroup(of: Void.self) { group in
                for await member in added {
                    group.addTask { await self.runMember(member) }
                }
            }
        } onCancel: {
            Task { await self.shutdown(deadline: .seconds(10)) }
        }
        additions = nil
        readinessTimer?.cancel()
        readinessTimer = nil
        if !isShuttingDown {
            log.log(.error, "every bot has stopped; nothing left to run")
        }
        return outcome
    }

    /// Starts the bound of `/readyz`'s wait for the bots of the start (`FleetReadiness`), `limit` from now, and its
    /// timer, which logs the bots no longer waited for when it ends.
    private func boundReadinessWait(_ limit: Duration) {
        let (clock, start) = (clock, clock.now)
        board.update { $0.readiness.waitAtMost(limit, from: start) }
        let ends = start.adding(limit)
        readinessTimer = Task {
            guard (try? await clock.sleep(until: ends)) != nil else { return }
            await self.readinessWaitEnded(limit)
        }
    }

    private func readinessWaitEnded(_ limit: Duration) async {
        // The bots given at `init` are named once their status is first read, which may not have happened yet.
        await nameEveryMember()
        let (now, shuttingDown) = (clock.now, isShuttingDown)
        guard let givenUp = board.update({ $0.readiness.endWait(at: now, shuttingDown: shuttingDown) }) else { return }
        log.log(.warning, "/readyz no longer waits for \(givenUp.count) bot\(givenUp.count == 1 ? "" : "s") of the start "
            + "not live within readinessTimeoutSeconds; it answers 200 without them (see /healthz for why)", [
                "readinessTimeout": Self.secondsText(limit), "bots": givenUp.joined(separator: ","),
            ])
    }

    private nonisolated func runMember(_ member: Member) async {
        if let reporting = member.bot as? any StateReportingBot {
            await reporting.reportStates(to: board.reporter(for: member.id))
        }
        let reason = await member.bot.run()
        await botStopped(id: member.id, reason: reason)
    }

    /// Asks every bot to stop: no new work; running handlers finish and pending acknowledgements arrive within
    /// `deadline`; connections close with 1000. Returns when every bot has finished its shutdown. Later calls
    /// return at once.
    public func shutdown(deadline: Duration) async {
        guard !isShuttingDown else { return }
        isShuttingDown = true
        shutdownDeadline = deadline
        readinessTimer?.cancel()
        readinessTimer = nil
        log.log(.info, "shutting down", ["deadline": Self.secondsText(deadline)])
        // No bot starts again during a shutdown.
        for wait in restarts.values { wait.cancel() }
        restarts.removeAll()
        readmitted.removeAll()
        let running = members.filter { $0.stopReason == nil }.map(\.bot)
        await withTaskGroup(of: Void.self) { group in
            for bot in running {
                group.addTask { await bot.shutdown(deadline: deadline) }
            }
        }
        // No bot joins after a shutdown: the run's task group ends once the running ones have returned.
        additions?.finish()
        additions = nil
    }

    /// Makes `run()` wait, when it has no bot to run, for bots to be added (by a reload) or a shutdown, instead of
    /// returning at once.
    package func waitForBotsWhenEmpty() {
        waitsWhenEmpty = true
    }

    /// Adds `bot`, named `name`, at the end of the list and starts it in `run()`'s task group (at `run()` when it
    /// has not begun). False, and nothing added, when shutting down or once the run has ended.
    @discardableResult
    package func add(_ bot: any SupervisedBot, named name: String) -> Bool {
        guard !isShuttingDown, !(hasRun && additions == nil) else { return false }
        let member = Member(id: nextMemberID, rank: nextMemberID, bot: bot, name: name, stopReason: nil, isAwaited: false)
        nextMemberID += 1
        members.append(member)
        join(member, at: members.count - 1)
        if let additions {
            running.insert(member.id)
            additions.yield(member)
        }
        return true
    }

    /// How much longer than its stop deadline `remove`/`replace` wait for a bot to stop before they go on without
    /// it, as `run` gives up on the bots at shutdown.
    package static let stopGrace: Duration = .seconds(2)

    /// Stops the bot named `name` gracefully (its connection closes with 1000) and takes it off the list; returns
    /// once its session has ended (its store closed), or `deadline` plus `stopGrace` on `clock` after asking it when
    /// it has not: it is logged and leaves the list once it stops. False when no such bot is supervised.
    @discardableResult
    package func remove(named name: String, deadline: Duration, clock: any ChatterClock = SystemClock()) async -> Bool {
        guard let index = await memberIndex(named: name) else { return false }
        let member = members[index]
        removing.insert(member.id)
        board.update { $0.readiness.leave(member.id) }
        await stop(member, deadline: deadline, clock: clock)
        finishIfNothingLeft()
        return true
    }

    /// Stops the bot named `name` as `remove` does, then runs `bot` in its place in the list (same position): a
    /// changed configuration. When the old one has not stopped in time, `bot` starts once it has. False when no such
    /// bot is supervised, or when shutting down (then nothing is started).
    @discardableResult
    package func replace(
        named name: String, with bot: any SupervisedBot, deadline: Duration, clock: any ChatterClock = SystemClock()
    ) async -> Bool {
        guard let index = await memberIndex(named: name) else { return false }
        let old = members[index]
        // Not yet live, the bot is still awaited in its new session: a reload must not make a starting pod ready.
        let wasLive = await old.bot.status.firstLiveAt != nil
        let successor = Member(
            id: nextMemberID, rank: old.rank, bot: bot, name: name, stopReason: nil, isAwaited: old.isAwaited && !wasLive)
        nextMemberID += 1
        removing.insert(old.id)
        successors[old.id] = successor
        // `/readyz` counts the successor, not live yet, from now on: the old session may take long to stop.
        board.update { tallies in
            tallies.readiness.leave(old.id)
            tallies.readiness.join(successor.id, rank: successor.rank, name: name, isAwaited: successor.isAwaited)
        }
        let stopped = await stop(old, deadline: deadline, clock: clock)
        finishIfNothingLeft()
        return stopped ? members.contains { $0.id == successor.id } : successors[old.id] != nil && mayStart
    }

    /// Whether a bot may still start: not shutting down, and the run (if it began) has not ended.
    private var mayStart: Bool { !isShuttingDown && !(hasRun && additions == nil) }

    /// Asks `member` to stop within `deadline` and waits until it has (its shutdown returned, its run task too), at
    /// most `deadline` plus `stopGrace` on `clock`; false, logged, when it has not by then. Once it has stopped, it
    /// leaves the list for its successor, if any.
    @discardableResult
    private func stop(_ member: Member, deadline: Duration, clock: any ChatterClock) async -> Bool {
        guard running.contains(member.id) else {
            settleStop(of: member.id)
            return true
        }
        let id = member.id
        let bot = member.bot
        shutdownsUnderWay.insert(id)
        // Not a child task: a shutdown that overruns must not hold the caller past the limit.
        Task {
            await bot.shutdown(deadline: deadline)
            self.shutdownReturned(id)
        }
        let limit = deadline + Self.stopGrace
        let timer = Task {
            guard (try? await clock.sleep(for: limit)) != nil else { return }
            self.giveUpWaiting(for: id)
        }
        let stopped = await withCheckedContinuation { stopWaiters[id, default: []].append($0) }
        timer.cancel()
        if !stopped {
            log.log(.error, "bot did not stop within its shutdown timeout; going on without waiting for it", bot: member.name, [
                "timeout": Self.secondsText(deadline), "waited": Self.secondsText(limit),
            ])
        }
        return stopped
    }

    private func shutdownReturned(_ id: Int) {
        shutdownsUnderWay.remove(id)
        settleStop(of: id)
        finishIfNothingLeft()
    }

    private func giveUpWaiting(for id: Int) {
        for waiter in stopWaiters.removeValue(forKey: id) ?? [] { waiter.resume(returning: false) }
    }

    /// Once a member removed or replaced has stopped (its shutdown and its run returned): those waiting for it go on,
    /// and it leaves the list, its successor (if any, and if bots may still start) starting in its place.
    private func settleStop(of id: Int) {
        guard !running.contains(id), !shutdownsUnderWay.contains(id) else { return }
        for waiter in stopWaiters.removeValue(forKey: id) ?? [] { waiter.resume(returning: true) }
        guard removing.remove(id) != nil else { return }
        // A reload's change wins over a restart the member waited for.
        restarts.removeValue(forKey: id)?.cancel()
        readmitted.removeValue(forKey: id)
        let successor = successors.removeValue(forKey: id)
        guard let position = positions[id] else {
            if let successor { board.update { $0.readiness.leave(successor.id) } }
            return
        }
        log.log(.info, "bot stopped for the reload", bot: members[position].name)
        retire(members[position])
        leave(members[position])
        guard let successor, mayStart else {
            if let successor { board.update { $0.readiness.leave(successor.id) } }
            members.remove(at: position)
            for index in members.indices.dropFirst(position) { positions[members[index].id] = index }
            return
        }
        members[position] = successor
        join(successor, at: position)
        if let additions {
            running.insert(successor.id)
            additions.yield(successor)
        }
    }

    /// Keeps the handler durations of `member`, which leaves the list, in the process-wide histogram: it counts
    /// among `retiringBots` until its status is read.
    private func retire(_ member: Member) {
        let id = member.id
        let bot = member.bot
        retiringBots[id] = bot
        Task {
            let latency = await bot.status.handlerLatency
            self.retired(id, latency)
        }
    }

    private func retired(_ id: Int, _ latency: HandlerLatencySummary) {
        guard retiringBots.removeValue(forKey: id) != nil else { return }
        retiredHandlerLatency.add(latency)
    }

    /// Holds the run open while a reload changes the members (it may remove the last running bot before it adds
    /// others); `endMembershipChange()` lets it end again when nothing is left to run.
    package func beginMembershipChange() {
        membershipChanges += 1
    }

    package func endMembershipChange() {
        membershipChanges -= 1
        if membershipChanges == 0 {
            let waiting = readmitted
            readmitted.removeAll()
            for (id, successor) in waiting { restart(id, with: successor) }
        }
        finishIfNothingLeft()
    }

    /// The position of the member named `name` that is not being removed; the names of members given at `init` are
    /// read from their status first if `run()` has not yet.
    private func memberIndex(named name: String) async -> Int? {
        await nameEveryMember()
        return members.firstIndex { $0.name == name && !removing.contains($0.id) }
    }

    /// Reads the names of the members given at `init` from their status, once.
    private func nameEveryMember() async {
        guard !everyMemberNamed else { return }
        for member in members where member.name.isEmpty {
            let known = await member.bot.status.name
            if let index = positions[member.id], members[index].name.isEmpty {
                members[index].name = known
                board.update { $0.readiness.name(member.id, known) }
            }
        }
        everyMemberNamed = true
    }

    /// Counts `member`, now at `position` in `members`, on the board, starting.
    private func join(_ member: Member, at position: Int) {
        positions[member.id] = position
        if !(member.bot is any StateReportingBot) { unreported.insert(member.id) }
        board.update { tallies in
            tallies.health.join(member.id, rank: member.rank)
            tallies.readiness.join(member.id, rank: member.rank, name: member.name, isAwaited: member.isAwaited)
        }
    }

    /// Stops counting `member`, which leaves `members` (its position is then taken or given up by the caller).
    private func leave(_ member: Member) {
        positions[member.id] = nil
        unreported.remove(member.id)
        board.update { tallies in
            tallies.health.leave(member.id)
            tallies.readiness.leave(member.id)
        }
    }

    /// The run of the member at `index` ended for `reason`.
    private func recordStop(of index: Int, _ reason: BotStopReason) {
        members[index].stopReason = reason
        let id = members[index].id
        board.update { tallies in
            tallies.health.stop(id, as: reason.stoppedState)
            tallies.readiness.stopped(id)
        }
    }

    /// Asks the members that do not report their state changes where they are, for the board.
    private func askUnreportedMembers() async {
        for id in unreported {
            guard let position = positions[id] else { continue }
            let status = await members[position].bot.status
            board.report(id, state: status.state, connected: status.connected, hasBeenLive: status.firstLiveAt != nil)
        }
    }

    /// The names of the bots that stopped on their own (crashing, a refused sign-in, a fatal storage error), not
    /// because they were asked to.
    package func botsStoppedOnTheirOwn() async -> Set<String> {
        var names: Set<String> = []
        for member in members where member.stopReason.map({ $0 != .shutdown }) ?? false && !removing.contains(member.id) {
            names.insert(member.name.isEmpty ? await member.bot.status.name : member.name)
        }
        return names
    }

    /// Whether `shutdown(deadline:)` was called.
    public var shuttingDown: Bool { isShuttingDown }

    /// Each bot's status, in configuration order. A bot that stopped shows `.stopped`, not connected, and (unless it
    /// was asked to stop) the reason as `lastError`.
    public func statuses() async -> [BotStatus] {
        var result: [BotStatus] = []
        result.reserveCapacity(members.count)
        for member in members {
            result.append(Self.status(of: member.bot, stopReason: member.stopReason, await member.bot.status))
        }
        return result
    }

    /// A bot's `status` as the supervisor shows it: once its run ended, stopped (or crashing) and not connected.
    private static func status(of bot: any SupervisedBot, stopReason: BotStopReason?, _ reported: BotStatus) -> BotStatus {
        var status = reported
        if let reason = stopReason {
            status.state = reason.stoppedState
            status.connected = false
            status.stopReason = reason.description
            if reason != .shutdown { status.lastError = reason.description }
        }
        return status
    }

    /// What `/metrics` serves: every bot's status, and the handler durations of the whole process (the bots
    /// removed or replaced included).
    package func metrics() async -> MetricsExposition {
        // Taken together before any suspension: a bot moves from the list to `retiringBots` to
        // `retiredHandlerLatency` without one, so it is counted exactly once.
        var retired = retiredHandlerLatency
        let retiring = Array(retiringBots.values)
        let exposition = MetricsExposition(bots: await statuses())
        for bot in retiring { retired.add(await bot.status.handlerLatency) }
        var result = exposition
        result.retiredHandlerLatency = retired
        return result
    }

    /// What `/healthz` reports: every bot's status, and whether the process is healthy.
    public func health() async -> HealthReport {
        HealthReport(shuttingDown: isShuttingDown, bots: await statuses())
    }

    /// What `/healthz` reports by default: the counts the board keeps and the bots not live it names, taken from it
    /// in one step, with the statuses of those bots only.
    package func healthSummary() async -> HealthReport {
        await askUnreportedMembers()
        let snapshot = board.update { $0.health.snapshot(namingNotLive: NameSample.limit) }
        let notLive = await statuses(of: members(counted: snapshot.bots))
        return HealthReport(shuttingDown: isShuttingDown, summary: HealthSummary(counts: snapshot.counts, notLive: notLive))
    }

    /// The page of the console's fleet that `query` asks for: the counts and every bot's counted state taken from the
    /// board in one step, the page's bots chosen from them (`ConsoleFleetSelection`), then the statuses and charts of
    /// those bots alone.
    func consolePage(_ query: ConsoleFleetQuery) async -> ConsoleFleetPage {
        await nameEveryMember()
        await askUnreportedMembers()
        let snapshot = board.update { $0.health.snapshotOfEveryBot() }
        let listed = snapshot.bots.compactMap { bot in
            positions[bot.id].map { ConsoleFleetSelection.Listed(name: members[$0].name, counted: bot) }
        }
        let selection = ConsoleFleetSelection(listed, query: query)
        let shown = members(counted: selection.bots.map(\.counted))
        let statuses = await statuses(of: shown)
        var charts: [String: [Int]] = [:]
        for (status, (_, member)) in zip(statuses, shown) {
            charts[status.name] = await member.bot.messagesPerMinute
        }
        return ConsoleFleetPage(
            total: snapshot.counts.total, states: snapshot.counts.states, selection: selection, statuses: statuses,
            perMinute: { charts[$0] ?? [] })
    }

    /// The members that the bots `counted` are (those still members), with what they were counted as; taken before
    /// any suspension, so that a member's stop reason is the one of the counts' instant.
    private func members(counted: [HealthTally.Counted]) -> [(counted: HealthTally.Counted, member: Member)] {
        counted.compactMap { bot in positions[bot.id].map { (bot, members[$0]) } }
    }

    /// The statuses of `shown`, each in the state and connection it was counted in, so that they agree with the
    /// counts taken with them however the bots moved since; the rest of a status is read now.
    private func statuses(of shown: [(counted: HealthTally.Counted, member: Member)]) async -> [BotStatus] {
        var result: [BotStatus] = []
        result.reserveCapacity(shown.count)
        for (bot, member) in shown {
            var status = Self.status(of: member.bot, stopReason: member.stopReason, await member.bot.status)
            status.state = bot.state
            status.connected = bot.connected
            result.append(status)
        }
        return result
    }

    /// Each bot with its name, in configuration order (before `run()` too): what the control routes act on.
    package func namedBots() async -> [(name: String, bot: any SupervisedBot)] {
        var result: [(name: String, bot: any SupervisedBot)] = []
        for member in members {
            result.append((member.name.isEmpty ? await member.bot.status.name : member.name, member.bot))
        }
        return result
    }

    /// What `/readyz` answers now (`FleetReadiness`): the bots a reload is removing are left out.
    /// A bot being replaced counts as its successor, not live yet, from the start of the replacement.
    func readinessVerdict() async -> ReadinessVerdict {
        await nameEveryMember()
        await askUnreportedMembers()
        let (shuttingDown, now) = (isShuttingDown, clock.now)
        return board.update { $0.readiness.verdict(shuttingDown: shuttingDown, at: now) }
    }

    /// Why each bot stopped, for the bots that did.
    public var stopReasons: [String: BotStopReason] {
        members.reduce(into: [:]) { reasons, member in
            if let reason = member.stopReason { reasons[member.name] = reason }
        }
    }

    private var outcome: SupervisorOutcome {
        SupervisorOutcome(
            wasShutDown: isShuttingDown,
            stops: members.map { SupervisorOutcome.Stop(bot: $0.name, reason: $0.stopReason ?? .shutdown) })
    }

    /// "1.5s": a duration as the log says it.
    private static func secondsText(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
        return String(format: "%.1fs", seconds)
    }

    /// Ends the run when every bot has stopped on its own: none is running, being removed or replaced, or about to be
    /// added by a change under way. A list left empty by removals waits for the next bots instead.
    private func finishIfNothingLeft() {
        guard membershipChanges == 0, running.isEmpty, removing.isEmpty, restarts.isEmpty, !members.isEmpty,
            members.allSatisfy({ $0.stopReason != nil })
        else { return }
        additions?.finish()
        additions = nil
    }

    private func botStopped(id: Int, reason: BotStopReason) {
        running.remove(id)
        defer { finishIfNothingLeft() }
        if removing.contains(id) {
            settleStop(of: id)
            return
        }
        guard let index = positions[id] else { return }
        recordStop(of: index, reason)
        let name = members[index].name
        if reason == .shutdown {
            log.log(.info, "bot stopped", bot: name)
        } else {
            let others = members.filter { $0.stopReason == nil }.count
            log.log(.error, "bot stopped: \(reason.description)", bot: name, [
                "reason": reason.kindName, "configurationError": String(reason.isConfigurationError),
                "othersRunning": String(others),
            ])
            if let bot = members[index].bot as? any RestartableBot, mayStart { awaitRestart(of: id, bot) }
        }
    }

    /// Waits, in a task of its own, for the stopped member `id` to be able to start again (`RestartableBot`), then
    /// runs its successor in its place.
    private func awaitRestart(of id: Int, _ bot: any RestartableBot) {
        restarts[id] = Task {
            let successor = await bot.successorOnceReadmitted()
            self.restart(id, with: successor)
        }
    }

    /// Runs `successor` in the place of the stopped member `id`, unless its wait was cancelled (a reload removed or
    /// replaced it, or the process shuts down), or it may not start again (nil).
    private func restart(_ id: Int, with successor: (any SupervisedBot)?) {
        guard restarts[id] != nil else { return }
        if let successor, membershipChanges > 0 {
            // A reload is changing the members: it may be removing or replacing this one, and wins.
            readmitted[id] = successor
            if let position = positions[id] {
                log.log(.info, "bot may start again once the reload under way ends", bot: members[position].name)
            }
            return
        }
        restarts.removeValue(forKey: id)
        defer { finishIfNothingLeft() }
        guard let successor, mayStart, !removing.contains(id), let additions, let position = positions[id]
        else { return }
        let old = members[position]
        log.log(.notice, "bot starts again: the make of its kind given up at its timeout has returned", bot: old.name)
        retire(old)
        leave(old)
        // Not waited for by `/readyz`: it had stopped, as a bot a reload starts again.
        let member = Member(
            id: nextMemberID, rank: old.rank, bot: successor, name: old.name, stopReason: nil, isAwaited: false)
        nextMemberID += 1
        members[position] = member
        join(member, at: position)
        running.insert(member.id)
        additions.yield(member)
    }

    /// The bots stopped that wait to start again by themselves once the make their kind hangs in returns.
    package var botsAwaitingRestart: [String] {
        members.filter { restarts[$0.id] != nil }.map(\.name)
    }

    /// The bots among those that may start again once the reload under way has changed the members.
    package var botsReadmittedDuringMembershipChange: [String] {
        members.filter { readmitted[$0.id] != nil }.map(\.name)
    }
}

/// How a supervised run ended: whether it was asked to stop, and why each bot stopped.
public struct SupervisorOutcome: Sendable, Equatable {
    /// One bot's end.
    public struct Stop: Sendable, Equatable {
        /// The bot's name.
        public var bot: String
        /// Why it stopped.
        public var reason: BotStopReason
    }

    /// Whether `BotSupervisor.shutdown(deadline:)` was called (the bots did not all stop on their own).
    public var wasShutDown: Bool
    /// Each bot, in configuration order.
    public var stops: [Stop]

    /// The bots that stopped for another reason than a shutdown.
    public var failures: [Stop] { stops.filter { $0.reason != .shutdown } }
}

extension BotStopReason {
    /// The state of a bot whose run ended for this reason.
    var stoppedState: BotStatus.State {
        if case .crashing = self { .crashing } else { .stopped }
    }

    /// A short machine-friendly name of the case, for log fields.
    var kindName: String {
        switch self {
        case .shutdown: "shutdown"
        case .configurationError: "configuration_error"
        case .credentialsRejected: "credentials_rejected"
        case .revoked: "revoked"
        case .storageFailed: "storage_failed"
        case .crashing: "crashing"
        }
    }
}
