import Foundation
@testable import SQLite
import Testing

/// The file-system work around a database: here, the flush a checkpoint runs before it takes the connection.
@Suite struct DatabaseFileTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func flushingAnExistingFileToDiskSucceedsAndLeavesItsContent() throws {
        let path = directory.file("log.sqlite-wal")
        try Data("frames".utf8).write(to: URL(fileURLWithPath: path))
        #expect(DatabaseFile.flushToDisk(at: path))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("frames".utf8))
    }

    @Test func flushingAMissingFileReportsFailureAndCreatesNothing() {
        let path = directory.file("missing.sqlite-wal")
        #expect(DatabaseFile.flushToDisk(at: path) == false)
        #expect(FileManager.default.fileExists(atPath: path) == false)
    }
}
