import Testing
import TestSupport

/// The ports handed to child processes that must listen on a port known in advance.
@Suite("free ports for child processes")
struct FreePortTests {
    @Test func aPortIsHandedOutOncePerProcess() throws {
        // 1,000 draws among about 22,000 ports would repeat one almost surely if nothing kept track.
        var ports: Set<Int> = []
        for _ in 0..<1_000 { ports.insert(try FreePort.take()) }
        #expect(ports.count == 1_000)
    }
}
