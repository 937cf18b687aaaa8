import ChildProcesses
import Foundation
import Glibc
import TestSupport
import Testing

/// `scripts/test`, the README's test command, run on a copy of what it reads (the script and
/// Tests/requirements.txt) in a temporary folder, so that it never builds or tests this checkout from inside a run.
@Suite struct TestCommandTests {
    @Test func withoutRootOrTmuxItStopsBeforeBuildingAndPrintsTheAptGetLine() async throws {
        let copy = try TestCommandCopy(requirements: "websockets==17.4\n")
        defer { copy.remove() }
        let path = try copy.pathWithout("tmux")

        let run = try await copy.run(["--prepare-only"], path: path, asUnprivilegedUser: true)

        #expect(run.status == .exited(3), "\(run.output)")
        #expect(run.output.contains("missing Debian packages:"), "\(run.output)")
        #expect(run.output.contains("tmux: the terminal client's tests"), "\(run.output)")
        let aptLine = run.output.split(separator: "\n").first { $0.contains("apt-get install") }
        #expect(aptLine?.split(separator: " ").contains("tmux") == true, "\(run.output)")
        #expect(!FileManager.default.fileExists(atPath: copy.root + "/.build"), "it prepared something before stopping")
    }

    @Test func itInstallsThePeersIntoTheProjectsOwnEnvironmentAndReusesIt() async throws {
        let copy = try TestCommandCopy(requirements: "# no packages: the environment alone\n")
        defer { copy.remove() }

        let first = try await copy.run(["--prepare-only"])
        #expect(first.status == .exited(0), "\(first.output)")
        #expect(first.output.contains("installing the Python peers"), "\(first.output)")
        #expect(access(copy.root + "/.build/test-peers/bin/python3", X_OK) == 0)
        let mark = copy.root + "/.build/test-peers/kept"
        #expect(FileManager.default.createFile(atPath: mark, contents: Data()))

        let second = try await copy.run(["--prepare-only"])
        #expect(second.status == .exited(0), "\(second.output)")
        #expect(!second.output.contains("installing the Python peers"), "\(second.output)")
        #expect(FileManager.default.fileExists(atPath: mark), "the environment was made again with nothing changed")
    }

    @Test func aChangeOfTheRequirementsRebuildsTheEnvironment() async throws {
        let copy = try TestCommandCopy(requirements: "# no packages\n")
        defer { copy.remove() }
        let first = try await copy.run(["--prepare-only"])
        #expect(first.status == .exited(0), "\(first.output)")
        let mark = copy.root + "/.build/test-peers/kept"
        #expect(FileManager.default.createFile(atPath: mark, contents: Data()))

        try "# no packages, said otherwise\n".write(toFile: copy.requirements, atomically: true, encoding: .utf8)
        let second = try await copy.run(["--prepare-only"])

        #expect(second.status == .exited(0), "\(second.output)")
        #expect(second.output.contains("installing the Python peers"), "\(second.output)")
        #expect(!FileManager.default.fileExists(atPath: mark), "the old environment was kept")
        #expect(access(copy.root + "/.build/test-peers/bin/python3", X_OK) == 0)
    }
}

/// The test command and its requirements, copied into a fresh folder anyone may read.
private struct TestCommandCopy {
    let root: String
    var requirements: String { root + "/Tests/requirements.txt" }

    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    init(requirements: String) throws {
        let files = FileManager.default
        root = files.temporaryDirectory.appendingPathComponent("test-command-\(UUID().uuidString)").path
        try files.createDirectory(atPath: root + "/scripts", withIntermediateDirectories: true)
        try files.createDirectory(atPath: root + "/Tests", withIntermediateDirectories: true)
        try files.copyItem(
            atPath: Self.checkout.appendingPathComponent("scripts/test").path, toPath: root + "/scripts/test")
        try requirements.write(toFile: root + "/Tests/requirements.txt", atomically: true, encoding: .utf8)
        for folder in [root, root + "/scripts", root + "/Tests"] {
            try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
        }
        try files.setAttributes([.posixPermissions: 0o644], ofItemAtPath: root + "/Tests/requirements.txt")
    }

    /// A folder of links to every program on this process's `PATH` but `program`, to stand for a machine without it.
    func pathWithout(_ program: String) throws -> String {
        let files = FileManager.default
        let bin = root + "/bin"
        try files.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try files.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin)
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":").map(String.init) {
            for name in (try? files.contentsOfDirectory(atPath: directory)) ?? [] where name != program {
                let link = "\(bin)/\(name)"
                if !files.fileExists(atPath: link) { try? files.createSymbolicLink(atPath: link, withDestinationPath: "\(directory)/\(name)") }
            }
        }
        return bin
    }

    /// Runs the copy's `scripts/test arguments` to its end (at most 10 minutes); as root with `asUnprivilegedUser`,
    /// as the user nobody.
    func run(_ arguments: [String], path: String? = nil, asUnprivilegedUser: Bool = false) async throws
        -> (status: ChildProcess.Termination, output: String)
    {
        var command = [root + "/scripts/test"] + arguments
        if asUnprivilegedUser && getuid() == 0 {
            let setpriv = try TestPeer.command("setpriv", package: "util-linux")
            command = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"] + command
        }
        var environment: [String: String] = [:]
        if let path { environment["PATH"] = path }
        let child = try ChildProcess(
            command, workingDirectory: root, environment: environment, standardError: .standardOutput,
            discardingInput: true)
        let output = try await child.allOutput(timeout: .seconds(600))
        guard let status = await child.termination(timeout: .hangGuard) else {
            child.kill()
            throw DeadlineExceeded("scripts/test to exit", timeout: .hangGuard)
        }
        return (status, String(decoding: output, as: UTF8.self))
    }

    func remove() { try? FileManager.default.removeItem(atPath: root) }
}
