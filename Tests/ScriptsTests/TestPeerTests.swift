import TestSupport
import Testing

/// A test that drives an outside program looks for it first and, when it is missing, fails with one line naming it
/// and how the test command installs it.
@Suite struct TestPeerTests {
    @Test func aMissingCommandIsNamedWithItsAptGetLine() {
        let error = #expect(throws: TestPeer.Missing.self) {
            try TestPeer.command("chatterbots-no-such-program", package: "chatterbots-tools")
        }
        let description = error?.description ?? ""
        #expect(description.hasPrefix("chatterbots-no-such-program is missing: scripts/test installs it"))
        #expect(description.hasSuffix("sudo apt-get install -y chatterbots-tools)"))
        #expect(!description.contains("\n"))
    }

    @Test func aCommandOnThePathIsFound() throws {
        #expect(try TestPeer.command("sh").hasSuffix("/sh"))
    }

    @Test func aMissingPythonPackageIsNamedWithWhereTheTestCommandPutsIt() {
        let error = #expect(throws: TestPeer.Missing.self) {
            try TestPeer.python(importing: ["chatterbots_no_such_package"])
        }
        let description = error?.description ?? ""
        #expect(description.contains("chatterbots_no_such_package") || description.contains("not installed"))
        #expect(description.contains("scripts/test"))
        #expect(!description.contains("\n"))
    }

    @Test func theTestPeersEnvironmentHoldsEveryPinnedPackage() throws {
        let python = try TestPeer.python(importing: ["websockets", "wsproto", "kosoku", "kubernetes_validate"])
        #expect(python.hasSuffix(".build/test-peers/bin/python3"))
    }
}
