import Testing

@testable import ChatterBench

@Suite("BenchReport")
struct BenchReportTests {
    static func report(_ figures: [Figure]) -> BenchReport {
        BenchReport(
            scenario: "throughput", date: "2026-12-04T00:00:00Z",
            machine: MachineDescription(cpuModel: "test", cores: 2, memoryMiB: 1, kernel: "Linux", loadAverage: 0),
            server: "test", parameters: [:], figures: figures, notes: [])
    }

    @Test func theCFloorHasAColumnNextToTheOthersAndSwiftsRatioToIt() {
        let table = Self.report([Figure("bot CPU per message", unit: "µs", ["swift": 40, "python": 80, "c": 10])]).table()
        let lines = table.split(separator: "\n")
        let header = lines.first { $0.hasPrefix("figure") }.map(String.init) ?? ""
        let columns = header.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(columns == ["figure", "unit", "swift", "python", "c", "swift/python", "swift/c", "goal"])
        let row = lines.first { $0.hasPrefix("bot CPU per message") }.map(String.init) ?? ""
        #expect(row.contains("0.50×"))
        #expect(row.contains("4.00×"))
    }

    @Test func ratioColumnsNeedSwiftAndRuntimeColumns() {
        #expect(BenchReport.ratioColumns(["swift", "c"]).map { "\($0)/\($1)" } == ["swift/c"])
        #expect(BenchReport.ratioColumns(["python", "c"]).isEmpty)
        #expect(BenchReport.ratioColumns(["swift"]).isEmpty)
        #expect(BenchReport.ratioColumns(["swift", "server"]).isEmpty)
    }
}
