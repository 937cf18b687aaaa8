@testable import BotRuntime
import ChatterBots
import Foundation
import SQLite
import Testing

/// One store, one opener: the store's lock holds from open to close, while the store is dormant too, and lets
/// other stores of the same directory be.
@Suite("BotStore lock")
struct StoreLockTests {
    let directory: StoreDirectory

    init() throws {
        directory = try StoreDirectory()
    }

    /// A store that may go dormant, returned once it is: released at once as its idle timeout would, an hour away.
    func openDormantStore() async throws -> BotStore {
        let store = try await BotStore.open(
            path: directory.file("bot.sqlite"), clock: ManualClock(), dormancy: DatabaseDormancy(idleTimeout: .seconds(3600)))
        try await store.setValue("kept", forKey: "note", in: .global)
        #expect(await store.releaseConnectionIfIdle())
        #expect(await !store.isConnectionOpen)
        return store
    }

    @Test func aDormantStoreStillRefusesASecondOpenerInThisProcess() async throws {
        let store = try await openDormantStore()
        let error = await storeError { _ = try await openStore(in: directory) }
        guard case .inUse(_, inThisProcess: true)? = error else {
            Issue.record("expected the store to be in use, got \(String(describing: error))")
            return
        }
        #expect(try await store.value(String.self, forKey: "note", in: .global) == "kept")
        await store.close()
    }

    @Test func aClosedStoreOpensAgain() async throws {
        let first = try await openStore(in: directory)
        try await first.setValue(1, forKey: "runs", in: .global)
        await first.close()
        let second = try await openStore(in: directory)
        #expect(try await second.value(Int.self, forKey: "runs", in: .global) == 1)
        await second.close()
    }

    @Test func aStoreLeftWithoutClosingLetsItsLockGoWithTheLastReference() async throws {
        do {
            let forgotten = try await openStore(in: directory)
            try await forgotten.setValue(1, forKey: "runs", in: .global)
        }
        let error = await storeError {
            let again = try await openStore(in: directory)
            await again.close()
        }
        #expect(error == nil)
    }

    @Test func storesOfOtherBotsInTheSameDirectoryOpenTogether() async throws {
        let stores = try await withThrowingTaskGroup(of: BotStore.self) { group in
            for index in 0..<20 { group.addTask { try await openStore(in: directory, name: "bot-\(index).sqlite") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 20)
        for store in stores { await store.close() }
    }

    @Test func theLockFileIsReadableByTheOwnerOnlyAndEveryBotHasItsOwnByte() async throws {
        let store = try await openStore(in: directory)
        #expect(try permissions(of: directory.file(StoreLock.fileName)) == 0o600)
        await store.close()
        #expect(StoreLock.offset(of: "a.sqlite") != StoreLock.offset(of: "b.sqlite"))
        #expect(StoreLock.offset(of: "echo.sqlite") == StoreLock.offset(of: "echo.sqlite"))
        #expect(StoreLock.offset(of: String(repeating: "z", count: 64)) >= 0)
    }

    @Test func aDirectoryThatDoesNotExistIsReportedAsMissing() async throws {
        let error = await storeError { _ = try await BotStore.open(path: directory.file("absent/bot.sqlite")) }
        guard case .storage(_, let underlying)? = error, case .cannotOpen(_, .missingDirectory, _)? = underlying as? DatabaseError
        else {
            Issue.record("expected a missing directory, got \(String(describing: error))")
            return
        }
    }
}
