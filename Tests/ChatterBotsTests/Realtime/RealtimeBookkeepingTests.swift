import Foundation
import Testing

@testable import ChatterBots
@testable import WebSocket

@Suite("Realtime request table, request ids and close reasons")
struct RealtimeBookkeepingTests {
    typealias Table = PendingRequestTable<String, String>
    static let start = Date(timeIntervalSince1970: 1_000_000)

    // MARK: PendingRequestTable

    @Test func replyBeforeTheWaiterAttachesIsKeptForIt() {
        var table = Table()
        table.insert(id: 1, type: "ping", timeout: .seconds(10), now: Self.start)
        guard case .stored = table.resolve(1, with: "pong") else {
            Issue.record("the early reply was not stored")
            return
        }
        #expect(table.attach("waiter", to: 1, missing: "missing") == "pong")
        #expect(table.count == 0)
    }

    @Test func replyAfterTheWaiterAttachesResumesIt() {
        var table = Table()
        table.insert(id: 1, type: "ping", timeout: .seconds(10), now: Self.start)
        #expect(table.attach("waiter", to: 1, missing: "missing") == nil)
        guard case .resume("waiter") = table.resolve(1, with: "pong") else {
            Issue.record("the waiter was not resumed")
            return
        }
        #expect(table.count == 0)
    }

    @Test func onlyTheFirstOutcomeCounts() {
        var table = Table()
        table.insert(id: 7, type: "ping", timeout: .seconds(10), now: Self.start)
        _ = table.resolve(7, with: "cancelled")
        guard case .notPending = table.resolve(7, with: "pong") else {
            Issue.record("a second outcome was accepted")
            return
        }
        #expect(table.attach("waiter", to: 7, missing: "missing") == "cancelled")
        guard case .notPending = table.resolve(7, with: "late pong") else {
            Issue.record("a reply to a settled request was accepted")
            return
        }
    }

    @Test func expireTimesOutOnlyDueRequestsEarliestFirst() {
        var table = Table()
        table.insert(id: 1, type: "message.send", timeout: .seconds(30), now: Self.start)
        table.insert(id: 2, type: "ping", timeout: .seconds(5), now: Self.start)
        table.insert(id: 3, type: "sync.request", timeout: .seconds(10), now: Self.start)
        for id: UInt64 in 1...3 { _ = table.attach("waiter \(id)", to: id, missing: "missing") }
        #expect(table.nextDeadline() == Self.start.addingTimeInterval(5))

        let expired = table.expire(now: Self.start.addingTimeInterval(10)) { "timeout \($0.type) after \($0.timeout)" }
        #expect(expired.map(\.0) == ["waiter 2", "waiter 3"])
        #expect(expired.map(\.1) == ["timeout ping after 5.0 seconds", "timeout sync.request after 10.0 seconds"])
        #expect(table.nextDeadline() == Self.start.addingTimeInterval(30))
        #expect(table.count == 1)
    }

    @Test func settledRequestsNoLongerHaveADeadline() {
        var table = Table()
        table.insert(id: 1, type: "ping", timeout: .seconds(5), now: Self.start)
        table.insert(id: 2, type: "ping", timeout: .seconds(8), now: Self.start)
        _ = table.attach("first", to: 1, missing: "missing")
        _ = table.resolve(1, with: "pong")
        #expect(table.nextDeadline() == Self.start.addingTimeInterval(8))
        _ = table.resolve(2, with: "pong")
        #expect(table.nextDeadline() == nil)
        #expect(table.expire(now: Self.start.addingTimeInterval(60)) { _ in "timeout" }.isEmpty)
    }

    @Test func expiredRequestWithoutWaiterKeepsTheTimeoutForIt() {
        var table = Table()
        table.insert(id: 1, type: "ping", timeout: .seconds(5), now: Self.start)
        #expect(table.expire(now: Self.start.addingTimeInterval(5)) { _ in "timeout" }.isEmpty)
        #expect(table.attach("waiter", to: 1, missing: "missing") == "timeout")
    }

    @Test func resolveAllSettlesEveryRequest() {
        var table = Table()
        for id: UInt64 in 1...4 { table.insert(id: id, type: "ping", timeout: .seconds(5), now: Self.start) }
        _ = table.attach("waiter 1", to: 1, missing: "missing")
        _ = table.attach("waiter 3", to: 3, missing: "missing")
        let resumed = table.resolveAll { "closed \($0.id)" }
        #expect(Set(resumed.map(\.0)) == ["waiter 1", "waiter 3"])
        #expect(table.attach("waiter 2", to: 2, missing: "missing") == "closed 2")
        #expect(table.attach("waiter 4", to: 4, missing: "missing") == "closed 4")
        #expect(table.count == 0)
    }

    // MARK: Event buffer

    @Test func theBacklogIsReportedOnceUntilTheConsumerCatchesUp() async {
        let buffer = RealtimeEventBuffer(backlogLimit: 4, hardLimit: 100)
        let event = RealtimeEvent.diagnostic(.binaryFrame(byteCount: 1))
        #expect((0..<6).map { _ in buffer.push(event) } == [.accepted, .accepted, .accepted, .acceptedBehind, .acceptedBehind, .acceptedBehind])
        var read: [RealtimeEvent] = []
        for _ in 0..<6 { read.append(await buffer.next()!) }  // 4 events, the backlog note, 1 more: 1 still waits
        #expect(read[4] == .diagnostic(.eventBacklog(unread: 4, closesAt: 100)))
        #expect((0..<3).map { _ in buffer.push(event) } == [.accepted, .accepted, .acceptedBehind])
        read = []
        for _ in 0..<4 { read.append(await buffer.next()!) }
        #expect(read == Array(repeating: event, count: 4), "the same backlog is not reported twice")
        #expect((0..<4).map { _ in buffer.push(event) } == [.accepted, .accepted, .accepted, .acceptedBehind])
        read = []
        for _ in 0..<5 { read.append(await buffer.next()!) }
        #expect(read.last == .diagnostic(.eventBacklog(unread: 4, closesAt: 100)), "a new backlog after catching up")
    }

    @Test func theHardLimitRefusesEventsAndNeverWaits() async {
        let buffer = RealtimeEventBuffer(backlogLimit: 3, hardLimit: 3)
        let event = RealtimeEvent.diagnostic(.binaryFrame(byteCount: 1))
        #expect((0..<3).map { _ in buffer.push(event) } == [.accepted, .accepted, .acceptedBehind])
        #expect(buffer.push(event) == .overflowed, "three events and the backlog note wait")
        _ = await buffer.next()
        #expect(buffer.push(event) == .overflowed, "once refused, nothing more is buffered")
        buffer.finish()
        #expect(await buffer.next() == event && buffer.push(event) == .overflowed)
    }

    // MARK: Request ids

    @Test func requestIDsRoundTrip() {
        for id: UInt64 in [1, 42, 1_000_000, UInt64.max] {
            #expect(RequestID.parse(RequestID.text(id)) == id)
        }
        #expect(RequestID.text(42) == "c-42")
    }

    @Test(arguments: ["", "c", "c-", "c-0", "c-01", "C-1", "x-1", "c-1a", "c--1", "c-18446744073709551616", "c-1 "])
    func foreignRequestIDsAreNotOurs(_ text: String) {
        #expect(RequestID.parse(text) == nil)
    }

    // MARK: Close reasons

    @Test func closeCodesMapToTheSeedsReasons() {
        #expect(RealtimeCloseReason(code: 1000, reason: "") == .normal)
        #expect(RealtimeCloseReason(code: 1001, reason: "") == .serverRestarting)
        #expect(RealtimeCloseReason(code: 1006, reason: "") == .networkLost)
        #expect(RealtimeCloseReason(code: 4001, reason: "") == .tokenInvalid)
        #expect(RealtimeCloseReason(code: 4002, reason: "") == .clientKeyInvalid)
        #expect(RealtimeCloseReason(code: 4003, reason: "") == .sessionRevoked)
        #expect(RealtimeCloseReason(code: 4008, reason: "30") == .rateLimited(seconds: 30))
        #expect(RealtimeCloseReason(code: 1005, reason: "") == .other(code: 1005, reason: ""))
        #expect(RealtimeCloseReason(code: 3000, reason: "x") == .other(code: 3000, reason: "x"))
    }

    @Test(arguments: [
        (" 30 ", 30), ("0", 0), ("2.5", 3), ("1e3", 1000), ("\n12\n", 12), ("1e99", Int(Int32.max)), ("-1", nil),
        ("soon", nil), ("", nil), ("inf", nil), ("nan", nil), ("0x10", nil), ("30s", nil),
    ] as [(String, Int?)])
    func rateLimitSecondsAreReadFromTheReasonByTheRetryAfterRules(reason: String, seconds: Int?) {
        #expect(RealtimeCloseReason(code: 4008, reason: reason) == .rateLimited(seconds: seconds))
    }

    @Test func everyReasonKeepsItsCode() {
        for code: UInt16 in [1000, 1001, 1002, 1006, 1009, 4001, 4002, 4003, 4008, 4500] {
            #expect(RealtimeCloseReason(code: code, reason: "7").code == code)
        }
    }

    @Test func transportDropIsNetworkLostAndAProtocolViolationNamesItself() {
        #expect(RealtimeCloseReason(WebSocketCloseInfo(code: .abnormalClosure, initiator: .transport)) == .networkLost)
        let violation = WebSocketCloseInfo(code: .protocolError, initiator: .local, error: .maskForbidden)
        guard case .other(1002, let reason) = RealtimeCloseReason(violation) else {
            Issue.record("a protocol violation was not mapped to other(1002)")
            return
        }
        #expect(!reason.isEmpty)
    }

    @Test func aMessageThisClientRefusedAsTooLargeIsToldApartFromTheServers1009() {
        let refused = WebSocketCloseInfo(
            code: .messageTooBig, reason: "", initiator: .local, error: .messageTooLarge(limit: 1 << 20))
        #expect(RealtimeCloseReason(refused) == .incomingMessageTooLarge(limit: 1 << 20))
        #expect(RealtimeCloseReason(refused).code == 1009)
        let serverClosed = WebSocketCloseInfo(code: .messageTooBig, reason: "frame too large", initiator: .peer)
        #expect(RealtimeCloseReason(serverClosed) == .other(code: 1009, reason: "frame too large"))
    }
}
