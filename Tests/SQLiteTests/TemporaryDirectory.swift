import Foundation
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

/// A directory in which this process cannot create files, undone on deinit.
///
/// Mode 0555 is enough for an ordinary user; root ignores modes, so for root the directory is also made
/// immutable with `chattr +i` (which binds root too). The initializer checks that creating a file really fails.
final class ReadOnlyDirectory {
    let path: String
    private var isImmutable = false

    init(_ path: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(chmod(path, 0o555) == 0)
        if Self.canCreateFile(in: path) {
            try Self.chattr("+i", path)
            isImmutable = true
        }
        try #require(!Self.canCreateFile(in: path), "could not make \(path) read-only for this process")
    }

    deinit {
        if isImmutable { try? Self.chattr("-i", path) }
        chmod(path, 0o755)
    }

    private static func canCreateFile(in directory: String) -> Bool {
        let probe = (directory as NSString).appendingPathComponent("probe-\(UUID().uuidString)")
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL, mode_t(0o600))
        guard descriptor >= 0 else { return false }
        close(descriptor)
        unlink(probe)
        return true
    }

    private static func chattr(_ flag: String, _ path: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, path]
        try process.run()
        process.waitUntilExit()
    }
}

/// The permission bits of the file at `path`.
func permissions(of path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return try #require(attributes[.posixPermissions] as? Int)
}
