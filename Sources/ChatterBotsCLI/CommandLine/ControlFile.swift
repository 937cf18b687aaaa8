import BotRuntime
import Foundation
import Glibc

/// `<dataDirectory>/control.json`: how the `quarantine` and `reload` commands reach the `run` process that uses a
/// data directory. `run` writes it (owner-only) once its HTTP port serves, and removes it when it exits; a process
/// that died (a crash, SIGKILL) leaves it behind, so a reader passes over a file whose process is gone: whatever
/// listens on its port now must not be sent the control token.
struct ControlFile: Hashable, Sendable, Codable {
    /// The `run` process's id.
    var pid: Int32
    /// The address the commands connect to (loopback).
    var host: String
    /// The port `run` serves `/healthz`, `/metrics` and the control routes on (the one the system chose for 0).
    var httpPort: Int
    /// When the process started (`/proc/<pid>/stat`, in clock ticks since boot): a later process given the same
    /// id is not it. nil in files written before it was recorded.
    var processStart: UInt64?
    /// The process's `--shutdown-timeout`, in seconds: how long a reload may wait for each bot it stops. nil in files
    /// written before it was recorded.
    var shutdownTimeoutSeconds: Double?

    /// The file of the process `pid` (this one's start time read when it is this process).
    init(pid: Int32, host: String, httpPort: Int, processStart: UInt64? = nil, shutdownTimeout: Duration? = nil) {
        self.pid = pid
        self.host = host
        self.httpPort = httpPort
        self.processStart = processStart ?? (pid == getpid() ? Self.startTime(of: pid) : nil)
        self.shutdownTimeoutSeconds = shutdownTimeout.map { Double($0.components.seconds) + Double($0.components.attoseconds) * 1e-18 }
    }

    /// `shutdownTimeoutSeconds` as a duration; nil when not recorded or not a duration (a hand-edited file).
    var shutdownTimeout: Duration? {
        guard let seconds = shutdownTimeoutSeconds, seconds.isFinite, seconds >= 0, seconds < 1e9 else { return nil }
        return .milliseconds(Int64(seconds * 1000))
    }

    static let fileName = "control.json"

    /// The address a command on this machine connects to for a server bound to `bind`: loopback for a wildcard.
    static func host(connectingTo bind: String) -> String {
        bind == "0.0.0.0" ? "127.0.0.1" : bind == "::" || bind == "[::]" ? "::1" : bind
    }

    static func url(in dataDirectory: URL) -> URL {
        dataDirectory.appendingPathComponent(fileName, isDirectory: false)
    }

    /// The files of the processes using `dataDirectory`: its own, and each shard's (`shard-<INDEX>/`), with the
    /// directory each was found in.
    static func all(in dataDirectory: URL) -> [(URL, ControlFile)] {
        let shards = ((try? FileManager.default.contentsOfDirectory(atPath: dataDirectory.path)) ?? [])
            .filter { $0.hasPrefix("shard-") }.sorted()
            .map { dataDirectory.appendingPathComponent($0, isDirectory: true) }
        return ([dataDirectory] + shards).compactMap { directory in
            guard let file = read(in: directory), file.processIsAlive else { return nil }
            return (directory, file)
        }
    }

    /// Whether the process that wrote the file still runs: its id exists (it may belong to another user: EPERM)
    /// and, when the file says when it started, the process with that id started then.
    var processIsAlive: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard let processStart else { return true }
        return Self.startTime(of: pid) == processStart
    }

    /// The start time of process `pid`, field 22 of `/proc/<pid>/stat`; nil when it cannot be read.
    static func startTime(of pid: Int32) -> UInt64? {
        ProcessStat(pid: pid)?.field(22).flatMap { UInt64($0) }
    }

    /// The file of `dataDirectory`; nil when there is none or it cannot be read.
    static func read(in dataDirectory: URL) -> ControlFile? {
        guard let data = try? Data(contentsOf: url(in: dataDirectory)) else { return nil }
        return try? JSONDecoder().decode(ControlFile.self, from: data)
    }

    /// Writes the file into `dataDirectory`, readable by the owner only, replacing any left by a dead process.
    func write(in dataDirectory: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(self)
        let target = Self.url(in: dataDirectory)
        let temporary = dataDirectory.appendingPathComponent(".\(Self.fileName).\(pid)", isDirectory: false)
        try? FileManager.default.removeItem(at: temporary)
        // Created owner-only by open(2) itself, so that the file is never readable by others, even briefly.
        let fd = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        let written = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        let writeError = errno
        close(fd)
        guard written == data.count else {
            try? FileManager.default.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: writeError) ?? .EIO)
        }
        guard rename(temporary.path, target.path) == 0 else {
            let code = errno
            try? FileManager.default.removeItem(at: temporary)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    /// Removes the file of `dataDirectory` if it is this one's (a later process may have written its own).
    func remove(in dataDirectory: URL) {
        guard Self.read(in: dataDirectory) == self else { return }
        try? FileManager.default.removeItem(at: Self.url(in: dataDirectory))
    }
}
