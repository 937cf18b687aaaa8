@testable import BotRuntime
import ChatterBots
import Foundation
import SQLite
import Synchronization
import TestSupport
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

    @Test func aStoreOpenedThroughALinkToItsDirectoryIsRefusedWhileOpenUnderTheDirectorysOwnName() async throws {
        let path = try link("link", to: "real")
        let store = try await BotStore.open(path: directory.file("real/bot.sqlite"), clock: ManualClock())
        let error = await storeError { _ = try await BotStore.open(path: path + "/bot.sqlite", clock: ManualClock()) }
        guard case .inUse(_, inThisProcess: true)? = error else {
            Issue.record("expected the store to be in use, got \(String(describing: error))")
            return
        }
        await store.close()
    }

    /// `link`, pointing at `target` (a directory of the test's, made if missing); made again if it exists.
    @discardableResult
    func link(_ link: String, to target: String) throws -> String {
        let path = directory.file(link)
        try FileManager.default.createDirectory(atPath: directory.file(target), withIntermediateDirectories: true)
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: directory.file(target))
        return path
    }

    /// Expects the store `second/bot.sqlite`, opened directly, to be refused as open in this process.
    func expectSecondStoreHeld() async {
        let error = await storeError { _ = try await BotStore.open(path: directory.file("second/bot.sqlite"), clock: ManualClock()) }
        guard case .inUse(_, inThisProcess: true)? = error else {
            Issue.record("expected the store in the link's new directory to be in use, got \(String(describing: error))")
            return
        }
    }

    @Test func aLinkRepointedOnceNothingIsHeldThroughItLocksInItsNewDirectory() async throws {
        let path = try link("link", to: "first")
        try await BotStore.open(path: path + "/bot.sqlite", clock: ManualClock()).close()
        try link("link", to: "second")
        let throughLink = try await BotStore.open(path: path + "/bot.sqlite", clock: ManualClock())
        await expectSecondStoreHeld()
        let inFirst = try await BotStore.open(path: directory.file("first/bot.sqlite"), clock: ManualClock())
        await inFirst.close()
        await throughLink.close()
    }

    @Test func aDormantStoreOpenedThroughALinkStaysInItsDirectoryWhenTheLinkIsRepointed() async throws {
        let path = try link("link", to: "first")
        let store = try await BotStore.open(
            path: path + "/bot.sqlite", clock: ManualClock(), dormancy: DatabaseDormancy(idleTimeout: .seconds(3600)))
        try await store.setValue("kept", forKey: "note", in: .global)
        #expect(await store.releaseConnectionIfIdle())
        try link("link", to: "second")
        #expect(try await store.value(String.self, forKey: "note", in: .global) == "kept")
        #expect(FileManager.default.fileExists(atPath: directory.file("second/bot.sqlite")) == false)
        await store.close()
    }

    @Test func aLinkRepointedWhileAStoreIsHeldThroughItLocksNewStoresInItsNewDirectory() async throws {
        let path = try link("link", to: "first")
        let held = try await BotStore.open(path: path + "/held.sqlite", clock: ManualClock())
        try link("link", to: "second")
        let throughLink = try await BotStore.open(path: path + "/bot.sqlite", clock: ManualClock())
        await expectSecondStoreHeld()
        await throughLink.close()
        await held.close()
    }

    @Test func storesOfOtherBotsInTheSameDirectoryOpenTogether() async throws {
        let stores = try await withThrowingTaskGroup(of: BotStore.self) { group in
            for index in 0..<20 { group.addTask { try await openStore(in: directory, name: "bot-\(index).sqlite") } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(stores.count == 20)
        for store in stores { await store.close() }
    }

    @Test func theLockFilesAreReadableByTheOwnerOnlyAndEveryBotHasItsOwnByte() async throws {
        let store = try await openStore(in: directory)
        #expect(try permissions(of: directory.file(StoreLock.fileName)) == 0o600)
        #expect(try permissions(of: directory.file(StoreLock.stripeFileName(of: "bot.sqlite"))) == 0o600)
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

    @Test func aFileWhereTheDirectoryShouldBeIsReportedAsNotADirectory() async throws {
        #expect(FileManager.default.createFile(atPath: directory.file("data"), contents: Data("not a directory".utf8)))
        let error = await storeError { _ = try await BotStore.open(path: directory.file("data/bot.sqlite")) }
        guard case .storage(_, let underlying)? = error, case .cannotOpen(_, .other(let reason), _)? = underlying as? DatabaseError
        else {
            Issue.record("expected a path that is not a directory, got \(String(describing: error))")
            return
        }
        #expect(reason == "\(directory.file("data")) is not a directory: move what is there, or choose another directory")
    }

    /// `data`, made again once the directory it named, holding the store `name` open, has been moved to `moved`; with
    /// `dormant`, the store noted "kept" and went dormant before the move.
    func dataDirectoryMadeAgain(holding name: String, dormant: Bool = false) async throws -> (data: String, held: BotStore) {
        let data = directory.file("data")
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        let held = try await BotStore.open(
            path: data + "/" + name, clock: ManualClock(), dormancy: dormant ? DatabaseDormancy(idleTimeout: .seconds(3600)) : nil)
        if dormant {
            try await held.setValue("kept", forKey: "note", in: .global)
            #expect(await held.releaseConnectionIfIdle())
        }
        try FileManager.default.moveItem(atPath: data, toPath: directory.file("moved"))
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: false)
        return (data, held)
    }

    @Test func aDirectoryMadeAgainWhereAHeldOneWasOpensAStoreOfTheSameName() async throws {
        let (data, held) = try await dataDirectoryMadeAgain(holding: "bot.sqlite")
        let store = try await BotStore.open(path: data + "/bot.sqlite", clock: ManualClock())
        #expect(FileManager.default.fileExists(atPath: data + "/bot.sqlite"))
        let error = await storeError { _ = try await BotStore.open(path: directory.file("moved/bot.sqlite"), clock: ManualClock()) }
        guard case .inUse(_, inThisProcess: true)? = error else {
            Issue.record("expected the moved store to be still held, got \(String(describing: error))")
            return
        }
        await store.close()
        await held.close()
    }

    /// Expects the next read of `held`, a dormant store, to report its file moved, replaced or deleted.
    func expectFileReportedGone(by held: BotStore) async {
        let error = await storeError { _ = try await held.value(String.self, forKey: "note", in: .global) }
        guard case .storage(_, let underlying)? = error, case .cannotOpen(_, .other(let reason), _)? = underlying as? DatabaseError
        else {
            Issue.record("expected the store's file to be reported gone, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("moved, replaced or deleted"))
    }

    @Test func aDormantStoreWhoseDirectoryWasMovedAwayIsNotMadeAgainInTheNewOne() async throws {
        let (data, held) = try await dataDirectoryMadeAgain(holding: "bot.sqlite", dormant: true)
        await expectFileReportedGone(by: held)
        #expect(!FileManager.default.fileExists(atPath: data + "/bot.sqlite"))
        await held.close()
    }

    @Test func aDormantStoreDoesNotReopenTheStoreMadeInItsPlaceAfterItsDirectoryMoved() async throws {
        let (data, held) = try await dataDirectoryMadeAgain(holding: "bot.sqlite", dormant: true)
        let replacement = try await BotStore.open(path: data + "/bot.sqlite", clock: ManualClock())
        try await replacement.setValue("new", forKey: "note", in: .global)
        await replacement.close()
        await expectFileReportedGone(by: held)
        await held.close()
    }

    @Test func aStoreOpenedInAMovedDirectoryWhileItIsHeldIsMadeThere() async throws {
        let (data, held) = try await dataDirectoryMadeAgain(holding: "held.sqlite")
        let store = try await BotStore.open(path: directory.file("moved/other.sqlite"), clock: ManualClock())
        #expect(FileManager.default.fileExists(atPath: directory.file("moved/other.sqlite")))
        #expect(!FileManager.default.fileExists(atPath: data + "/other.sqlite"))
        #expect(!FileManager.default.fileExists(atPath: data + "/" + StoreLock.stripeFileName(of: "other.sqlite")))
        await store.close()
        await held.close()
    }

    #if os(Linux)
    @Test func aDirectoryMadeAgainWhereAHeldOneWasHoldsItsStoresInItsOwnLockFiles() async throws {
        let (data, held) = try await dataDirectoryMadeAgain(holding: "held.sqlite")
        let store = try await BotStore.open(path: data + "/bot.sqlite", clock: ManualClock())
        let stripe = try ForeignLock(file: data + "/" + StoreLock.stripeFileName(of: "bot.sqlite"))
        #expect(stripe.lockByte(of: "bot.sqlite") == EAGAIN, "another process finds the store held")
        await store.close()
        await held.close()
        stripe.close()
    }

    /// A build from before the stripes, holding the store `name` by its byte in `stores.lock` itself.
    private func olderBuild(holding name: String) throws -> ForeignLock {
        let olderBuild = try ForeignLock(file: directory.file(StoreLock.fileName))
        #expect(olderBuild.lockByte(of: name) == 0)
        return olderBuild
    }

    @Test func anOpenStoreHoldsItsByteInItsStripeAndRefusesOlderBuildsEveryByteOfTheLockFile() async throws {
        let store = try await openStore(in: directory)
        let stripe = try ForeignLock(file: directory.file(StoreLock.stripeFileName(of: "bot.sqlite")))
        let lockFile = try ForeignLock(file: directory.file(StoreLock.fileName))
        #expect(stripe.lockByte(of: "bot.sqlite") == EAGAIN)
        #expect(lockFile.lockByte(of: "bot.sqlite") == EAGAIN)
        #expect(lockFile.lockByte(of: "never-opened.sqlite") == EAGAIN)
        #expect(lockFile.shareWholeFile() == 0, "another process of this build joins the directory")
        await store.close()
        #expect(await eventually { stripe.lockByte(of: "bot.sqlite") == 0 })
        stripe.close()
        lockFile.close()
    }

    @Test func aStoreAnotherProcessHoldsInItsStripeIsRefusedAndTheOthersOpen() async throws {
        let lockFile = try ForeignLock(file: directory.file(StoreLock.fileName))
        let stripe = try ForeignLock(file: directory.file(StoreLock.stripeFileName(of: "bot.sqlite")))
        #expect(lockFile.shareWholeFile() == 0)
        #expect(stripe.lockByte(of: "bot.sqlite") == 0)
        let error = await storeError { _ = try await openStore(in: directory) }
        #expect(isHeldElsewhere(error), "got \(String(describing: error))")
        let other = try await openStore(in: directory, name: "other.sqlite")
        await other.close()
        stripe.close()
        lockFile.close()
    }

    @Test func besideAnOlderBuildStoresLockTheirBytesInTheLockFileItself() async throws {
        let olderBuild = try olderBuild(holding: "older.sqlite")
        let store = try await openStore(in: directory)
        #expect(olderBuild.lockByte(of: "bot.sqlite") == EAGAIN, "the older build sees the store held")
        let error = await storeError { _ = try await openStore(in: directory, name: "older.sqlite") }
        #expect(isHeldElsewhere(error), "got \(String(describing: error))")
        await store.close()
        #expect(await eventually { olderBuild.lockByte(of: "bot.sqlite") == 0 })
        olderBuild.close()
    }

    @Test func aStoreAnOlderBuildHoldsIsRefused() async throws {
        let olderBuild = try olderBuild(holding: "bot.sqlite")
        let error = await storeError { _ = try await openStore(in: directory) }
        #expect(isHeldElsewhere(error), "got \(String(describing: error))")
        olderBuild.close()
    }

    @Test func aProcessBesideAnOlderBuildKeepsLockingInTheLockFileUntilItHoldsNothing() async throws {
        let olderBuild = try olderBuild(holding: "older.sqlite")
        let first = try await openStore(in: directory)
        olderBuild.close()
        let second = try await openStore(in: directory, name: "second.sqlite")
        let lockFile = try ForeignLock(file: directory.file(StoreLock.fileName))
        #expect(lockFile.lockByte(of: "second.sqlite") == EAGAIN)
        #expect(lockFile.lockByte(of: "never-opened.sqlite") == 0, "no read lock over the file while its bytes are held")
        await first.close()
        await second.close()
        lockFile.close()
    }

    @Test func closingOneStoreBesideAnOlderBuildFreesItsByteAndNoOther() async throws {
        let olderBuild = try olderBuild(holding: "older.sqlite")
        let first = try await openStore(in: directory)
        let second = try await openStore(in: directory, name: "second.sqlite")
        await first.close()
        #expect(await eventually { olderBuild.lockByte(of: "bot.sqlite") == 0 })
        #expect(olderBuild.lockByte(of: "second.sqlite") == EAGAIN)
        await second.close()
        olderBuild.close()
    }

    @Test func onceTheOlderBuildIsGoneStoresGoBackToTheStripes() async throws {
        let olderBuild = try olderBuild(holding: "older.sqlite")
        let besideIt = try await openStore(in: directory)
        #expect(olderBuild.lockByte(of: "bot.sqlite") == EAGAIN, "beside the older build, the byte is in stores.lock")
        await besideIt.close()
        olderBuild.close()
        let probe = try ForeignLock(file: directory.file(StoreLock.fileName))
        #expect(await eventually { probe.shareWholeFile() == 0 }, "no byte of stores.lock is held any more")
        probe.close()
        let store = try await openStore(in: directory)
        let stripe = try ForeignLock(file: directory.file(StoreLock.stripeFileName(of: "bot.sqlite")))
        #expect(stripe.lockByte(of: "bot.sqlite") == EAGAIN)
        await store.close()
        stripe.close()
    }

    @Test func aStripeThatCannotBeOpenedRefusesItsStoreNamingItAndHoldsNothing() async throws {
        let stripeName = StoreLock.stripeFileName(of: "bot.sqlite")
        try FileManager.default.createDirectory(atPath: directory.file(stripeName), withIntermediateDirectories: false)
        let error = await storeError { _ = try await openStore(in: directory) }
        guard case .storage(_, let underlying)? = error, case .cannotOpen(_, .other(let reason), _)? = underlying as? DatabaseError
        else {
            Issue.record("expected the stripe to be unusable, got \(String(describing: error))")
            return
        }
        #expect(reason.contains(stripeName))
        let lockFile = try ForeignLock(file: directory.file(StoreLock.fileName))
        #expect(await eventually { lockFile.lockByte(of: "bot.sqlite") == 0 }, "the read lock over stores.lock went with the refusal")
        lockFile.close()
        try FileManager.default.removeItem(atPath: directory.file(stripeName))
        let store = try await openStore(in: directory)
        await store.close()
    }
    #endif
}

#if os(Linux)
/// Whether opening a store was refused because another process holds it.
private func isHeldElsewhere(_ error: BotStoreError?) -> Bool {
    guard case .inUse(_, inThisProcess: false)? = error else { return false }
    return true
}

/// A lock file as another process would use it: its own open file description, so its locks meet this process's.
/// Other tests spawn child processes, which hold a copy of every descriptor until their exec: a lock let go may be
/// held a moment longer, so the tests wait for a byte to become free rather than expect it at once.
private final class ForeignLock: Sendable {
    private let descriptor: Int32
    private let closed = Atomic<Bool>(false)

    init(file: String) throws {
        descriptor = open(file, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
    }

    deinit {
        close()
    }

    /// Closes the descriptor, which lets its locks go, as the other process's exit would.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        Glibc.close(descriptor)
    }

    /// Write-locks the byte of the store named `name`, as `StoreLock` does; 0 or the errno.
    func lockByte(of name: String) -> Int32 {
        StoreLock.setLock(descriptor, offset: StoreLock.offset(of: name), length: 1, type: F_WRLCK)
    }

    /// Read-locks the whole file, as `StoreLock` does while it locks bytes in the stripes; 0 or the errno.
    func shareWholeFile() -> Int32 {
        StoreLock.setLock(descriptor, offset: 0, length: 0, type: F_RDLCK)
    }
}
#endif
