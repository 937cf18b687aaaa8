@testable import BotRuntime
import ChatterBots
import Foundation
import SQLite
import Testing

/// Moving a bot's store: export copies everything and marks the source as moved, import puts the copy into another
/// data directory as the same device; neither runs over a bot that runs or a store that was not moved away.
@Suite("Store export and import")
struct StoreTransferTests {
    let source: StoreDirectory
    let destination: StoreDirectory
    let exports: StoreDirectory
    let clock = ManualClock()

    init() throws {
        source = try StoreDirectory()
        destination = try StoreDirectory()
        exports = try StoreDirectory()
    }

    var sourceURL: URL { URL(fileURLWithPath: source.path) }
    var destinationURL: URL { URL(fileURLWithPath: destination.path) }
    var exportFile: URL { URL(fileURLWithPath: exports.file("echo.export")) }

    let session = StoredSession(
        userId: Fixture.bot, deviceId: "D_ECHO", accessToken: "access-1", refreshToken: "refresh-1",
        accessTokenExpiresAt: Fixture.start.addingTimeInterval(900))
    let reply = MessageSend(conversationId: Fixture.direct, clientMessageId: .random(), content: .text("still to send"))

    /// The store of bot `echo` in `directory`, with a session, a cursor, a pending reply, state, a job and a
    /// quarantined piece of work.
    func makeBotStore(in directory: StoreDirectory) async throws {
        let store = try await openStore(in: directory, name: "echo.sqlite", clock: clock)
        try await store.saveSession(session)
        try await store.recordConversations([Fixture.conversation(lastSeq: 2)])
        try await handle(Fixture.message(seq: 1), in: store)
        _ = try await store.enqueue(reply)
        try await store.setValue("dark", forKey: "theme", in: .user(Fixture.alice))
        try await store.addJob(NewScheduledJob(
            id: "stretch", name: "reminder", dueAt: Fixture.start.addingTimeInterval(3600), payload: ["text": "stretch"],
            repeatRule: nil, timeZone: nil, owner: .user(Fixture.alice)))
        try await store.record([.quarantine(
            CrashSuspect(key: "message:9", handler: "onMessage", trace: "t9", summary: "boom", attempts: 2, lastStartedAt: Fixture.start),
            work: nil)])
        await store.close()
    }

    @Test func anImportedStoreIsTheSameDeviceWithEverythingTheBotHad() async throws {
        try await makeBotStore(in: source)
        let exported = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        #expect(exported.deviceId == "D_ECHO")
        #expect(exported.pendingOutbox == 1)
        let imported = try await StoreTransfer.importStore(from: exportFile, into: destinationURL)
        #expect(imported.bot == "echo")
        #expect(imported.userId == Fixture.bot.rawValue)
        #expect(imported.deviceId == "D_ECHO")
        #expect(imported.pendingOutbox == 1)
        #expect(imported.path == destination.file("echo.sqlite"))

        let store = try await openStore(in: destination, name: "echo.sqlite", clock: clock)
        #expect(try await store.session() == session)
        #expect(try await store.pendingOutbox().map(\.id) == [reply.clientMessageId])
        #expect(try await store.conversationCursor(Fixture.direct)?.contiguousSeq == 1)
        #expect(try await store.value(String.self, forKey: "theme", in: .user(Fixture.alice)) == "dark")
        #expect(try await store.job("stretch")?.status == .scheduled)
        #expect(try await store.quarantined().map(\.key) == ["message:9"])
        await store.close()
    }

    @Test func theExportedFileAndTheImportedStoreAreReadableByTheirOwnerOnly() async throws {
        try await makeBotStore(in: source)
        _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        #expect(try permissions(of: exportFile.path) == 0o600)
        _ = try await StoreTransfer.importStore(from: exportFile, into: destinationURL)
        #expect(try permissions(of: destination.file("echo.sqlite")) == 0o600)
    }

    @Test func anExportedStoreRefusesToOpenAndSaysWhereItWentAndHowToUndo() async throws {
        try await makeBotStore(in: source)
        _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        let error = await storeError { _ = try await openStore(in: source, name: "echo.sqlite", clock: clock) }
        guard case .moved(let path, let file, let movedAt)? = error else {
            Issue.record("expected a moved store, got \(String(describing: error))")
            return
        }
        #expect(path == source.file("echo.sqlite"))
        #expect(file == exportFile.path)
        #expect(movedAt == Fixture.start)
        let text = String(describing: error.map { $0 as any Error } ?? CancellationError())
        #expect(text.contains("import \(exportFile.path)"))
        #expect(text.contains("NEW device"))
    }

    @Test func anExportLeavesTheMovedMarkInTheStoresFileAndNothingInItsLog() async throws {
        try await makeBotStore(in: source)
        _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        let log = try FileManager.default.attributesOfItem(atPath: source.file("echo.sqlite-wal"))[.size] as? Int
        #expect(log == 0)
        let fileAlone = source.file("echo-file-alone.sqlite")
        try FileManager.default.copyItem(atPath: source.file("echo.sqlite"), toPath: fileAlone)
        let db = try Database(path: fileAlone)
        #expect(try StoreMove.recorded(in: db)?.file == exportFile.path)
        db.close()
    }

    @Test func exportRefusesABotThatRunsAndMarksNothing() async throws {
        try await makeBotStore(in: source)
        let running = try await openStore(in: source, name: "echo.sqlite", clock: clock)
        await #expect {
            _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        } throws: { error in
            guard case StoreTransferError.store(.inUse(_, _)) = error else { return false }
            return true
        }
        #expect(!FileManager.default.fileExists(atPath: exportFile.path))
        #expect(try await running.session() == session)
        await running.close()
        let reopened = try await openStore(in: source, name: "echo.sqlite", clock: clock)
        await reopened.close()
    }

    @Test func exportRefusesAnExistingFileAndABotWithoutAStore() async throws {
        try await makeBotStore(in: source)
        #expect(FileManager.default.createFile(atPath: exportFile.path, contents: Data("keep".utf8)))
        await #expect {
            _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        } throws: { error in
            guard case StoreTransferError.fileExists = error else { return false }
            return true
        }
        #expect(FileManager.default.contents(atPath: exportFile.path) == Data("keep".utf8))
        await #expect {
            _ = try await StoreTransfer.export(bot: "nobody", dataDirectory: sourceURL, to: exportFile, clock: clock)
        } throws: { error in
            guard case StoreTransferError.noStore(bot: "nobody", _) = error else { return false }
            return true
        }
        let store = try await openStore(in: source, name: "echo.sqlite", clock: clock)
        await store.close()
    }

    @Test func importRefusesToReplaceAStoreThatWasNotMovedAway() async throws {
        try await makeBotStore(in: source)
        _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        let live = try await openStore(in: destination, name: "echo.sqlite", clock: clock)
        try await live.setValue("mine", forKey: "owner", in: .global)
        await live.close()
        await #expect {
            _ = try await StoreTransfer.importStore(from: exportFile, into: destinationURL)
        } throws: { error in
            guard case StoreTransferError.storeExists(bot: "echo", _) = error else { return false }
            return true
        }
        let kept = try await openStore(in: destination, name: "echo.sqlite", clock: clock)
        #expect(try await kept.value(String.self, forKey: "owner", in: .global) == "mine")
        #expect(try await kept.session() == nil)
        await kept.close()
    }

    @Test func importRefusesWhileTheBotRunsThere() async throws {
        try await makeBotStore(in: source)
        _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        let running = try await openStore(in: destination, name: "echo.sqlite", clock: clock)
        await #expect {
            _ = try await StoreTransfer.importStore(from: exportFile, into: destinationURL)
        } throws: { error in
            guard case StoreTransferError.store(.inUse(_, inThisProcess: true)) = error else { return false }
            return true
        }
        await running.close()
    }

    @Test func importingTheFileBackReplacesTheMovedStoreAndTheBotStartsThereAgain() async throws {
        try await makeBotStore(in: source)
        _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        let imported = try await StoreTransfer.importStore(from: exportFile, into: sourceURL)
        #expect(imported.deviceId == "D_ECHO")
        let store = try await openStore(in: source, name: "echo.sqlite", clock: clock)
        #expect(try await store.pendingOutbox().map(\.id) == [reply.clientMessageId])
        await store.close()
    }

    @Test func importIgnoresTheLogOfAStoreDeletedWithoutIt() async throws {
        try await makeBotStore(in: source)
        _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        let old = try await openStore(in: destination, name: "echo.sqlite", clock: clock)
        try await old.saveSession(StoredSession(
            userId: Fixture.bot, deviceId: "D_OLD", accessToken: "old", refreshToken: "old", accessTokenExpiresAt: Fixture.start))
        try await old.setValue("light", forKey: "theme", in: .user(Fixture.alice))
        await old.close()
        #expect(FileManager.default.fileExists(atPath: destination.file("echo.sqlite-wal")))
        #expect(unlink(destination.file("echo.sqlite")) == 0)

        let imported = try await StoreTransfer.importStore(from: exportFile, into: destinationURL)
        #expect(imported.deviceId == "D_ECHO")
        let store = try await openStore(in: destination, name: "echo.sqlite", clock: clock)
        #expect(try await store.session() == session)
        #expect(try await store.value(String.self, forKey: "theme", in: .user(Fixture.alice)) == "dark")
        await store.close()
    }

    @Test func importReplacesAMovedStoreWithoutItsLogOrJournal() async throws {
        try await makeBotStore(in: source)
        _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        let moved = try await BotStore.open(path: source.file("echo.sqlite"), clock: clock, admitsMovedStore: true)
        try await moved.setValue("light", forKey: "theme", in: .user(Fixture.alice))
        await moved.close()
        #expect(FileManager.default.fileExists(atPath: source.file("echo.sqlite-wal")))
        #expect(FileManager.default.createFile(atPath: source.file("echo.sqlite-journal"), contents: Data(count: 512)))

        _ = try await StoreTransfer.importStore(from: exportFile, into: sourceURL)
        #expect(!FileManager.default.fileExists(atPath: source.file("echo.sqlite-journal")))
        let store = try await openStore(in: source, name: "echo.sqlite", clock: clock)
        #expect(try await store.value(String.self, forKey: "theme", in: .user(Fixture.alice)) == "dark")
        await store.close()
    }

    @Test func importAsGivesTheStoreAnotherBotName() async throws {
        try await makeBotStore(in: source)
        _ = try await StoreTransfer.export(bot: "echo", dataDirectory: sourceURL, to: exportFile, clock: clock)
        let imported = try await StoreTransfer.importStore(from: exportFile, into: destinationURL, as: "echo-2")
        #expect(imported.bot == "echo-2")
        let store = try await openStore(in: destination, name: "echo-2.sqlite", clock: clock)
        #expect(try await store.session() == session)
        await store.close()
        #expect(!FileManager.default.fileExists(atPath: destination.file("echo.sqlite")))
    }

    @Test func importRefusesAFileThatIsNotABotStoreAndLeavesNothingBehind() async throws {
        let other = try Database(path: exports.file("other.sqlite"))
        try other.execute(sql: "CREATE TABLE notes (body TEXT)")
        other.close()
        #expect(FileManager.default.createFile(atPath: exports.file("text.export"), contents: Data(String(repeating: "text\n", count: 200).utf8)))
        for file in ["other.sqlite", "text.export"] {
            await #expect {
                _ = try await StoreTransfer.importStore(from: URL(fileURLWithPath: exports.file(file)), into: destinationURL, as: "echo")
            } throws: { error in
                guard case StoreTransferError.notABotStore = error else { return false }
                return true
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: destination.path).filter { !$0.hasPrefix(StoreLock.fileName) } == [])
    }
}
