import Foundation
import Glibc

/// The programs from outside the project that tests drive, found before a test starts one: a missing peer fails the
/// test with one line naming it and how the test command installs it, not with an error from deep inside the peer.
public enum TestPeer {
    /// A peer is not installed.
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// The project's own virtual environment of Python peers, which `scripts/test` creates from
    /// `Tests/requirements.txt`.
    public static let pythonEnvironment = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent(".build/test-peers")

    /// The interpreter of the project's Python environment, after checking that it holds `modules`.
    public static func python(importing modules: [String] = []) throws -> String {
        let interpreter = pythonEnvironment.appendingPathComponent("bin/python3").path
        guard access(interpreter, X_OK) == 0 else {
            throw Missing(
                description: "the Python test peers are not installed (no \(interpreter)): "
                    + "scripts/test creates that environment from Tests/requirements.txt")
        }
        let sitePackages = try self.sitePackages()
        for module in modules {
            let package = sitePackages.appendingPathComponent(module).path
            guard FileManager.default.fileExists(atPath: package) || FileManager.default.fileExists(atPath: package + ".py")
            else {
                throw Missing(
                    description: "the Python peer \(module) is missing from \(sitePackages.path): "
                        + "scripts/test installs Tests/requirements.txt there (run it, or rm -rf .build/test-peers first)")
            }
        }
        return interpreter
    }

    /// `name` as found on `PATH`, after checking that it is there; `package` is the Debian package that has it.
    @discardableResult
    public static func command(_ name: String, package: String? = nil) throws -> String {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        for directory in directories {
            let candidate = "\(directory)/\(name)"
            if access(candidate, X_OK) == 0 { return candidate }
        }
        let debian = package ?? name
        throw Missing(
            description: "\(name) is missing: scripts/test installs it as root (otherwise: sudo apt-get install -y \(debian))")
    }

    private static func sitePackages() throws -> URL {
        let lib = pythonEnvironment.appendingPathComponent("lib")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        guard let version = versions.first(where: { $0.hasPrefix("python3") }) else {
            throw Missing(
                description: "\(pythonEnvironment.path) has no lib/python3*: scripts/test rebuilds it after rm -rf .build/test-peers")
        }
        return lib.appendingPathComponent(version).appendingPathComponent("site-packages")
    }
}
