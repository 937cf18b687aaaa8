import ChildProcesses
import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory under the system's temporary directory, removed with everything in it on deinit.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("SQLiteTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// A directory in which this process cannot create files, or a file it cannot write; undone on deinit.
///
/// Modes 0555 / 0444 are enough for an ordinary user; root ignores modes, so for root the item is also made
/// immutable with `chattr +i` (which binds root too). The initializer checks that writing really fails.
final class WriteProtected {
    let path: String
    private let isDirectory: Bool
    private var isImmutable = false

    /// Protects the existing file at `path`.
    init(file path: String) throws {
        self.path = path
        isDirectory = false
        try protect()
    }

    /// Protects the directory at `path`, creating it if needed.
    init(directory path: String) throws {
        self.path = path
        isDirectory = true
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try protect()
    }

    private func protect() throws {
        #expect(chmod(path, isDirectory ? 0o555 : 0o444) == 0)
        if canWrite() {
            try Self.chattr("+i", path)
            isImmutable = true
        }
        try #require(!canWrite(), "could not write-protect \(path) for this process")
    }

    deinit {
        if isImmutable { try? Self.chattr("-i", path) }
        chmod(path, isDirectory ? 0o755 : 0o644)
    }

    private func canWrite() -> Bool {
        if !isDirectory {
            let descriptor = open(path, O_WRONLY)
            guard descriptor >= 0 else { return false }
            close(descriptor)
            return true
        }
        let probe = (path as NSString).appendingPathComponent("probe-\(UUID().uuidString)")
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL, mode_t(0o600))
        guard descriptor >= 0 else { return false }
        close(descriptor)
        unlink(probe)
        return true
    }

    /// Runs `chattr flag path`; it takes milliseconds, so its exit is awaited on the calling thread.
    private static func chattr(_ flag: String, _ path: String) throws {
        let child = try ChildProcess([try TestPeer.command("chattr", package: "e2fsprogs"), flag, path], discardingInput: true)
        guard let termination = child.terminationBlocking(timeout: .hangGuard) else {
            child.kill()
            throw ChildProcess.Failure("chattr \(flag) \(path) did not finish within 10 s")
        }
        guard termination == .exited(0) else { throw ChildProcess.Failure("chattr \(flag) \(path) \(termination)") }
    }
}

/// The permission bits of the file at `path`.
func permissions(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return try #require(attributes[.posixPermissions] as? Int)
}
