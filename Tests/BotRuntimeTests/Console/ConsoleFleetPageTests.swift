@testable import BotRuntime
import BotRuntimeTestSupport
import Foundation
import Synchronization
import TestSupport
import Testing

@Suite("the console's fleet pages and filters")
struct ConsoleFleetPageTests {
    func status(_ name: String, _ state: BotStatus.State) -> BotStatus {
        BotStatus(
            name: name, state: state, connected: state == .live, since: Date(timeIntervalSince1970: 0), userId: nil,
            lastError: nil, reconnects: 0, messagesIn: 0, messagesOut: 0, outboxDepth: 0,
            handlerLatency: HandlerLatencySummary(), stopReason: nil)
    }

    var fleet: [BotStatus] {
        (1...120).map { status(String(format: "bot-%03d", $0), $0.isMultiple(of: 10) ? .reconnecting : .live) }
    }

    @Test func theServerSendsOnlyTheAskedPageAndCountsEveryState() {
        let page = ConsoleFleetPage(statuses: fleet, query: ConsoleFleetQuery(page: 3, pageSize: 50)) { _ in [1] }
        #expect(page.total == 120)
        #expect(page.states == ["live": 108, "reconnecting": 12])
        #expect(page.pages == 3)
        // The 12 reconnecting bots come first: the last page holds the last 20 live ones.
        let live = (1...120).filter { !$0.isMultiple(of: 10) }.map { String(format: "bot-%03d", $0) }
        #expect(page.bots.map(\.name) == Array(live.suffix(20)))
        #expect(page.bots.allSatisfy { $0.perMinute == [1] })
    }

    @Test func troubledBotsComeFirstAsHealthzNamesThemThenTheLiveOnesByName() {
        let page = ConsoleFleetPage(statuses: [
            status("zed", .live), status("amy", .reconnecting), status("bob", .crashing), status("cat", .live),
            status("dan", .connecting), status("eve", .stopped),
        ], query: ConsoleFleetQuery()) { _ in [] }
        #expect(page.bots.map(\.name) == ["bob", "eve", "amy", "dan", "cat", "zed"])
    }

    @Test func aPageOfTheFleetReadsTheStatusesOfItsOwnBotsAlone() async throws {
        let changes = ChangeSignal()
        let bots = (1...120).map { StatusReadCountingBot(String(format: "bot-%03d", $0), changes: changes) }
        let supervisor = BotSupervisor(bots: bots, log: LogSink(minimumLevel: .info, output: CapturedLines(changes: changes)))
        let run = Task { await supervisor.run() }
        try await changes.wait(until: {
            await supervisor.consolePage(ConsoleFleetQuery(pageSize: 1)).states == ["live": 120]
        }, "every bot live")

        let before = bots.map(\.statusReads)
        let page = await supervisor.consolePage(ConsoleFleetQuery(page: 2, pageSize: 10))
        let reads = zip(bots, before).map { bot, before in bot.statusReads - before }
        #expect(page.total == 120)
        #expect(page.states == ["live": 120])
        #expect(page.bots.map(\.name) == (11...20).map { String(format: "bot-%03d", $0) })
        let read = zip(bots, reads).filter { pair in pair.1 > 0 }.map { pair in pair.0.name }
        #expect(read == page.bots.map(\.name))
        #expect(reads.allSatisfy { $0 <= 1 })

        await supervisor.shutdown(deadline: .seconds(1))
        _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
    }

    @Test func filtersByStateAndByPartOfTheName() {
        let backingOff = ConsoleFleetPage(statuses: fleet, query: ConsoleFleetQuery(state: .reconnecting)) { _ in [] }
        #expect(backingOff.matching == 12)
        let named = ConsoleFleetPage(statuses: fleet, query: ConsoleFleetQuery(name: "BOT-11")) { _ in [] }
        #expect(named.bots.map(\.name) == (110...119).map { String(format: "bot-%03d", $0) })
    }

    @Test func aPagePastTheLastShowsTheLast() {
        let page = ConsoleFleetPage(statuses: fleet, query: ConsoleFleetQuery(page: 99, pageSize: 100)) { _ in [] }
        #expect(page.page == 2)
        #expect(page.bots.count == 20)
    }

    @Test func badQueryParametersSayWhatIsAccepted() throws {
        #expect(throws: ConsoleInputError("page must be a whole number from 1, found \"0\"")) {
            try ConsoleFleetQuery(queryItems: [("page", "0")])
        }
        #expect(throws: ConsoleInputError.self) { try ConsoleFleetQuery(queryItems: [("pageSize", "5000")]) }
        #expect(throws: ConsoleInputError.self) { try ConsoleFleetQuery(queryItems: [("state", "flying")]) }
        #expect(throws: ConsoleInputError.self) { try ConsoleFleetQuery(queryItems: [("sort", "name")]) }
        let query = try ConsoleFleetQuery(queryItems: [("state", "live"), ("name", ""), ("page", "2")])
        #expect(query == ConsoleFleetQuery(state: .live, page: 2))
    }
}

/// A bot that counts the reads of its status.
final class StatusReadCountingBot: StateReportingBot {
    let name: String
    let bot: StandInSession
    private let reads = Atomic<Int>(0)

    init(_ name: String, changes: ChangeSignal) {
        self.name = name
        bot = StandInSession(name, changes: changes)
    }

    /// How many times its status was read.
    var statusReads: Int { reads.load(ordering: .sequentiallyConsistent) }

    func reportStates(to reporter: BotStateReporter) async { await bot.reportStates(to: reporter) }
    func run() async -> BotStopReason { await bot.run() }
    func shutdown(deadline: Duration) async { await bot.shutdown(deadline: deadline) }

    var status: BotStatus {
        get async {
            reads.add(1, ordering: .sequentiallyConsistent)
            return await bot.status
        }
    }
}
