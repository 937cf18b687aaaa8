import Foundation
import Testing

@testable import ChatterBench

@Suite("FileDeletionRecord")
struct FileDeletionRecordTests {
    private static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("deletion-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func aDeletionIsReportedWithinTheWindowAndNotAfterIt() throws {
        let folder = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = FileDeletionRecord(path: folder.appendingPathComponent("cache/last-deletion").path)
        let deleted = Date(timeIntervalSince1970: 1_000_000)
        record.record(at: deleted)
        #expect(record.secondsSinceDeletion(at: deleted.addingTimeInterval(42)) == 42)
        #expect(record.secondsSinceDeletion(at: deleted.addingTimeInterval(FileDeletionRecord.window)) == nil)
    }

    @Test func nothingIsReportedWithoutARecordOrWithAnUnreadableOne() throws {
        let folder = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("last-deletion").path
        #expect(FileDeletionRecord(path: path).secondsSinceDeletion() == nil)
        try Data("yesterday".utf8).write(to: URL(fileURLWithPath: path))
        #expect(FileDeletionRecord(path: path).secondsSinceDeletion() == nil)
    }

    @Test func removingAFolderOfManyFilesRecordsItAndAFewFilesDoNot() throws {
        let folder = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let record = FileDeletionRecord(path: folder.appendingPathComponent("last-deletion").path)
        func filledFolder(_ name: String, files: Int) throws -> URL {
            let url = folder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            for index in 0..<files { try Data().write(to: url.appendingPathComponent("store-\(index)")) }
            return url
        }

        let few = try filledFolder("few", files: 3)
        record.remove(few)
        #expect(!FileManager.default.fileExists(atPath: few.path))
        #expect(record.secondsSinceDeletion() == nil)

        let many = try filledFolder("many", files: FileDeletionRecord.fileCountWorthNoting)
        record.remove(many)
        #expect(!FileManager.default.fileExists(atPath: many.path))
        #expect(record.secondsSinceDeletion() != nil)
    }

    @Test func theMachineLineWarnsOfARecentDeletion() {
        var machine = MachineDescription(
            cpuModel: "cpu", cores: 2, memoryMiB: 1024, kernel: "Linux", loadAverage: 0.5,
            secondsSinceBenchDeletedFiles: nil)
        #expect(!machine.summary.contains("warning"))
        machine.secondsSinceBenchDeletedFiles = 42
        #expect(machine.summary.contains("warning: a bench run deleted its files 42 s ago"))
        #expect(machine.summary.contains("--keep"))
    }
}
