@testable import BotRuntime
import ChatterBots
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

/// The file watch of `run`: a look every interval on the clock, a change reported once.
@Suite("ConfigurationFileWatch")
struct ConfigurationFileWatchTests {
    /// How many changes a watch reported.
    final class Changes: Sendable {
        private let count = Atomic(0)
        var reported: Int { count.load(ordering: .acquiring) }
        func report() { count.add(1, ordering: .releasing) }
    }

    /// Runs a watch of `path` from `version` on `clock`; returns its task and the changes it reports. The first
    /// `unreadable` changes are answered as not read.
    static func watch(
        _ path: String, from version: FileFingerprint?, on clock: ManualClock, unreadable: Int = 0
    ) -> (Task<Void, Never>, Changes) {
        let changes = Changes()
        let watch = ConfigurationFileWatch(path: path, interval: .seconds(2), clock: clock)
        let task = Task {
            await watch.run(from: version) {
                changes.report()
                return changes.reported > unreadable
            }
        }
        return (task, changes)
    }

    /// Moves the clock past one interval and returns once the watch has looked and sleeps again.
    static func look(_ clock: ManualClock) async throws {
        try await clock.waitForSleepers(1)
        await clock.advance(by: .seconds(2))
        try await clock.waitForSleepers(1)
    }

    @Test func aChangeMadeAfterTheFileInForceWasReadIsSeenAtTheFirstLook() async throws {
        let directory = try TemporaryDirectory("ConfigurationFileWatchTests")
        let file = try directory.write(#"{"bots": []}"#, to: "bots.json")
        let read = FileFingerprint.of(path: file.path)
        _ = try directory.write(#"{"bots": [], "logLevel": "debug"}"#, to: "bots.json")  // while the bots start
        let clock = ManualClock()
        let (task, changes) = Self.watch(file.path, from: read, on: clock)
        try await Self.look(clock)
        #expect(changes.reported == 1)
        try await Self.look(clock)
        #expect(changes.reported == 1, "a change is reported once")
        task.cancel()
        await task.value
    }

    @Test func aVersionThatCouldNotBeReadIsOfferedAgainAtTheNextLook() async throws {
        let directory = try TemporaryDirectory("ConfigurationFileWatchTests")
        let file = try directory.write(#"{"bots": []}"#, to: "bots.json")
        let read = FileFingerprint.of(path: file.path)
        _ = try directory.write(#"{"bots": [], "logLevel": "debug"}"#, to: "bots.json")
        let clock = ManualClock()
        let (task, changes) = Self.watch(file.path, from: read, on: clock, unreadable: 1)
        try await Self.look(clock)
        #expect(changes.reported == 1)
        try await Self.look(clock)
        #expect(changes.reported == 2, "offered again")
        try await Self.look(clock)
        #expect(changes.reported == 2, "read at last: seen")
        task.cancel()
        await task.value
    }

    @Test func aFileMadeReadableIsANewVersion() throws {
        let directory = try TemporaryDirectory("ConfigurationFileWatchTests")
        let file = try directory.write(#"{"bots": []}"#, to: "bots.json")
        #expect(chmod(file.path, 0o000) == 0)
        let forbidden = FileFingerprint.of(path: file.path)
        #expect(chmod(file.path, 0o600) == 0)
        #expect(FileFingerprint.of(path: file.path) != forbidden, "a chmod changes the status-change time")
    }

    @Test func aFileAsItWasReadIsNoChange() async throws {
        let directory = try TemporaryDirectory("ConfigurationFileWatchTests")
        let file = try directory.write(#"{"bots": []}"#, to: "bots.json")
        let clock = ManualClock()
        let (task, changes) = Self.watch(file.path, from: FileFingerprint.of(path: file.path), on: clock)
        try await Self.look(clock)
        #expect(changes.reported == 0)
        task.cancel()
        await task.value
    }
}
