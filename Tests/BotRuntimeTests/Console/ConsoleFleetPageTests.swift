@testable import BotRuntime
import Foundation
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
        #expect(page.bots.map(\.name) == (101...120).map { String(format: "bot-%03d", $0) })
        #expect(page.bots.allSatisfy { $0.perMinute == [1] })
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
