import Testing

@testable import ChatterBench

@Suite("BenchOptions")
struct BenchOptionsTests {
    @Test func theBotsScenarioDoesNotCountSQLiteMemoryUnlessAsked() throws {
        #expect(try BenchOptions(arguments: ["--bots", "1000"]).countsSQLiteMemory == false)
        #expect(try BenchOptions(arguments: ["--bots", "1000", "--sqlite-memory"]).countsSQLiteMemory)
    }

    @Test func theBotsScenarioRestartsTheBotsProcessOnlyWhenAsked() throws {
        #expect(try BenchOptions(arguments: []).measuresRestart == false)
        #expect(try BenchOptions(arguments: ["--restart"]).measuresRestart)
    }

    @Test func thePythonPeerCommitsInGroupsUnlessToldEach() throws {
        #expect(try BenchOptions(arguments: []).pythonCommit == .group)
        #expect(try BenchOptions(arguments: ["--python-commit", "each"]).pythonCommit == .each)
        let error = #expect(throws: BenchUsageError.self) { try BenchOptions(arguments: ["--python-commit", "batch"]) }
        #expect(error?.description.contains("batch") == true)
    }

    @Test func anUnknownOptionIsAUsageErrorNamingIt() {
        let error = #expect(throws: BenchUsageError.self) { try BenchOptions(arguments: ["--sqlite-memroy"]) }
        #expect(error?.description.contains("--sqlite-memroy") == true)
    }
}
