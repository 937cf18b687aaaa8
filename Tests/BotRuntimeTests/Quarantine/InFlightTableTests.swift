@testable import BotRuntime
import Foundation
import TestSupport
import Testing

/// The in-flight table: what one opener marks and does not clear is what the next opener finds.
@Suite("InFlightTable")
struct InFlightTableTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory("InFlightTableTests")
    }

    func record(_ key: String, bot: String = "echo", summary: String = "hello") -> InFlightTable.Record {
        InFlightTable.Record(
            bot: bot, handler: "onMessage", trace: "trace-\(key)", key: key, summary: summary,
            startedAt: Date(timeIntervalSince1970: 1_700_000_000.123))
    }

    @Test func workStillMarkedWhenTheTableIsLeftIsALeftoverForTheNextOpener() throws {
        do {
            let table = try InFlightTable(directory: directory.url)
            #expect(table.leftovers.isEmpty)
            _ = table.claim(record("message:1"))
        }
        let reopened = try InFlightTable(directory: directory.url)
        #expect(reopened.leftovers == [record("message:1")])
    }

    @Test func releasedWorkLeavesNothingBehind() throws {
        do {
            let table = try InFlightTable(directory: directory.url)
            let slot = try #require(table.claim(record("message:1")))
            _ = table.claim(record("message:2"))
            table.release(slot)
            #expect(table.running.map(\.key) == ["message:2"])
        }
        let reopened = try InFlightTable(directory: directory.url)
        #expect(reopened.leftovers.map(\.key) == ["message:2"])
    }

    @Test func forgottenLeftoversAreNotFoundAgain() throws {
        do {
            let table = try InFlightTable(directory: directory.url)
            _ = table.claim(record("message:1"))
        }
        do {
            let table = try InFlightTable(directory: directory.url)
            #expect(table.leftovers.count == 1)
            table.forgetLeftovers()
            #expect(table.running.isEmpty)
        }
        #expect(try InFlightTable(directory: directory.url).leftovers.isEmpty)
    }

    /// At an orderly end, what still runs did not crash the process; its owners may still release their slots.
    @Test func workUnmarkedAtAnOrderlyEndIsNoLeftoverAndItsSlotsStayItsOwn() throws {
        do {
            let table = try InFlightTable(directory: directory.url, capacity: 2)
            let first = try #require(table.claim(record("message:1")))
            _ = try #require(table.claim(record("message:2")))
            table.unmarkRunning()
            #expect(table.running.isEmpty)
            #expect(table.claim(record("message:3")) == nil, "both slots are still their owners'")
            table.release(first)
            #expect(table.claim(record("message:4")) != nil)
        }
        #expect(try InFlightTable(directory: directory.url).leftovers.map(\.key) == ["message:4"])
    }

    @Test func aReleasedSlotIsReusedSoTheTableDoesNotGrow() throws {
        let table = try InFlightTable(directory: directory.url, capacity: 1)
        for index in 0..<5 {
            let slot = try #require(table.claim(record("message:\(index)")))
            table.release(slot)
        }
        #expect(table.claim(record("message:last")) != nil)
    }

    @Test func workBeyondTheCapacityRunsUnmarked() throws {
        let table = try InFlightTable(directory: directory.url, capacity: 2)
        #expect(table.claim(record("a")) != nil)
        #expect(table.claim(record("b")) != nil)
        #expect(table.claim(record("c")) == nil)
        #expect(table.running.map(\.key) == ["a", "b"])
    }

    @Test func aSecondOpenerOfTheSameDataDirectoryIsRefused() throws {
        let table = try InFlightTable(directory: directory.url)
        #expect(throws: InFlightTableError.inUse(directory.url.appendingPathComponent(InFlightTable.fileName).path)) {
            try InFlightTable(directory: directory.url)
        }
        _ = table
    }

    @Test func aLongSummaryIsShortenedAtACharacterBoundary() throws {
        let table = try InFlightTable(directory: directory.url)
        _ = table.claim(record("message:1", summary: String(repeating: "é", count: 200)))
        let summary = try #require(table.running.first?.summary)
        #expect(summary.utf8.count <= 160)
        #expect(summary == String(repeating: "é", count: summary.count))
    }

    @Test func theTableFileIsReadableByItsOwnerOnly() throws {
        _ = try InFlightTable(directory: directory.url)
        let attributes = try FileManager.default.attributesOfItem(
            atPath: directory.url.appendingPathComponent(InFlightTable.fileName).path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
    }
}
