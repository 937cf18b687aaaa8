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

    @Test func theRuntimesIncludeTheCFloorByDefaultAndOnRequest() throws {
        #expect(try BenchOptions(arguments: []).runtimes == [.swift, .python, .c])
        #expect(try BenchOptions(arguments: ["--runtimes", "c"]).runtimes == [.c])
        #expect(try BenchOptions(arguments: ["--runtimes", "swift,python,c"]).runtimes == [.swift, .python, .c])
        #expect(try BenchOptions(arguments: ["--runtimes", "swift,python"]).runtimes == [.swift, .python])
        #expect(try BenchOptions(arguments: ["--swift-only"]).runtimes == [.swift])
    }

    @Test func anUnknownRuntimeIsAUsageErrorNamingItAndTheKnownOnes() {
        let error = #expect(throws: BenchUsageError.self) { try BenchOptions(arguments: ["--runtimes", "swift,rust"]) }
        #expect(error?.description.contains("swift,rust") == true)
        #expect(error?.description.contains("python and/or c") == true)
    }

    @Test func anUnknownOptionIsAUsageErrorNamingIt() {
        let error = #expect(throws: BenchUsageError.self) { try BenchOptions(arguments: ["--sqlite-memroy"]) }
        #expect(error?.description.contains("--sqlite-memroy") == true)
    }
}
