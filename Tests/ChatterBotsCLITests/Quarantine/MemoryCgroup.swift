import Foundation
import Glibc

/// A memory cgroup of its own with a hard limit, for a test that lets the kernel's OOM killer end a child process:
/// made under cgroup v1's memory hierarchy, or under cgroup v2's unified one, when this process may write there.
final class MemoryCgroup: Sendable {
    let path: String

    /// Why no memory cgroup can be made here, or nil when one can (a probe is made and removed again).
    static let unavailableReason: String? = {
        do {
            let probe = try MemoryCgroup(limitBytes: 256 << 20)
            probe.remove()
            return nil
        } catch {
            return "\(error)"
        }
    }()

    /// Makes the cgroup and sets its limit (swap included, so the limit cannot be dodged by swapping).
    ///
    /// - Throws: `CgroupError` when neither hierarchy can be written.
    init(limitBytes: Int) throws(CgroupError) {
        let name = "chatterbots-crash-tests-\(getpid())-\(UUID().uuidString.prefix(8))"
        let unified = FileManager.default.fileExists(atPath: "/sys/fs/cgroup/cgroup.controllers")
        path = unified ? "/sys/fs/cgroup/\(name)" : "/sys/fs/cgroup/memory/\(name)"
        guard mkdir(path, 0o755) == 0 else {
            throw CgroupError("cannot make the memory cgroup \(path): \(String(cString: strerror(errno)))")
        }
        do {
            if unified {
                try write("\(limitBytes)", to: "memory.max")
                try? write("0", to: "memory.swap.max")
            } else {
                try write("\(limitBytes)", to: "memory.limit_in_bytes")
                try? write("\(limitBytes)", to: "memory.memsw.limit_in_bytes")
            }
        } catch {
            remove()
            throw error
        }
    }

    /// Moves the process `pid` into the cgroup.
    func add(_ pid: pid_t) throws(CgroupError) {
        try write("\(pid)", to: "cgroup.procs")
    }

    /// Removes the cgroup (it must have no process left).
    func remove() {
        rmdir(path)
    }

    private func write(_ text: String, to file: String) throws(CgroupError) {
        let target = "\(path)/\(file)"
        let descriptor = open(target, O_WRONLY)
        guard descriptor >= 0 else { throw CgroupError("cannot open \(target): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        guard Glibc.write(descriptor, bytes, bytes.count) == bytes.count else {
            throw CgroupError("cannot write \(text) to \(target): \(String(cString: strerror(errno)))")
        }
    }
}

struct CgroupError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
