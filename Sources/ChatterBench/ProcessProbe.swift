import BotRuntime
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a process costs, read the way `top` reads it: resident memory from `/proc/<pid>/status` (VmRSS) and CPU
/// time from `getrusage` (this process) or `/proc/<pid>/stat` (a child, such as the server or the Python peer).
enum ProcessProbe {
    /// The resident set of `pid` (this process when nil), in bytes; nil when `/proc` cannot be read.
    static func residentBytes(of pid: Int32? = nil) -> Int? {
        let path = pid.map { "/proc/\($0)/status" } ?? "/proc/self/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kib = Int(fields[1]) else { return nil }
            return kib * 1024
        }
        return nil
    }

    /// User plus system CPU time this process has used, in seconds.
    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// User plus system CPU time `pid` has used, in seconds (fields 14 and 15 of `/proc/<pid>/stat`).
    static func cpuSeconds(of pid: Int32) -> Double? {
        guard let stat = ProcessStat(pid: pid), let user = stat.field(14).flatMap({ Double($0) }),
            let system = stat.field(15).flatMap({ Double($0) })
        else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Raises this process's open-file limit (inherited by the server and the peer it starts) to at least
    /// `wanted` descriptors: the soft limit up to the hard one, and the hard one too when the process may
    /// (root, up to `/proc/sys/fs/nr_open`). Returns the limits now in force.
    @discardableResult
    static func raiseOpenFileLimit(to wanted: Int) -> (soft: Int, hard: Int) {
        var limit = rlimit()
        getrlimit(resourceLimit, &limit)
        let wantedLimit = rlim_t(wanted)
        if limit.rlim_max < wantedLimit {
            var raised = rlimit(rlim_cur: wantedLimit, rlim_max: wantedLimit)
            if setrlimit(resourceLimit, &raised) == 0 {
                limit = raised
            }
        }
        if limit.rlim_cur < limit.rlim_max {
            var raised = rlimit(rlim_cur: limit.rlim_max, rlim_max: limit.rlim_max)
            if setrlimit(resourceLimit, &raised) == 0 { limit = raised }
        }
        getrlimit(resourceLimit, &limit)
        return (Int(limit.rlim_cur), Int(limit.rlim_max))
    }

    private static var resourceLimit: __rlimit_resource_t { __rlimit_resource_t(RLIMIT_NOFILE.rawValue) }

    private static func seconds(_ value: timeval) -> Double {
        Double(value.tv_sec) + Double(value.tv_usec) / 1_000_000
    }
}

/// CPU used over an interval, by this process or a child, as a share of one core.
struct CPUMeter {
    private let pid: Int32?
    private let startCPU: Double
    private let start: ContinuousClock.Instant

    /// Starts measuring `pid` (this process when nil).
    init(pid: Int32? = nil) {
        self.pid = pid
        self.startCPU = Self.read(pid)
        self.start = .now
    }

    /// CPU seconds used since `init`.
    var cpuSeconds: Double { Self.read(pid) - startCPU }

    /// Wall-clock seconds since `init`.
    var elapsedSeconds: Double { (ContinuousClock.now - start).seconds }

    /// CPU seconds per wall-clock second since `init` (1.0 = one core busy).
    var coreShare: Double {
        let elapsed = elapsedSeconds
        return elapsed > 0 ? cpuSeconds / elapsed : 0
    }

    private static func read(_ pid: Int32?) -> Double {
        if let pid { return ProcessProbe.cpuSeconds(of: pid) ?? 0 }
        return ProcessProbe.cpuSeconds()
    }
}

/// The thread context switches of a process over an interval, summed over its threads
/// (`/proc/<pid>/task/*/status`): voluntary ones are a thread going to sleep (waiting for I/O, a lock, a wake-up),
/// involuntary ones a thread preempted. Together they count the thread wake-ups a message costs.
struct ContextSwitchMeter {
    private let pid: Int32
    private let start: (voluntary: Int, involuntary: Int)

    init(pid: Int32) {
        self.pid = pid
        self.start = Self.read(pid)
    }

    /// The switches since `init`; threads that ended meanwhile are not counted.
    var switches: (voluntary: Int, involuntary: Int) {
        let now = Self.read(pid)
        return (max(0, now.voluntary - start.voluntary), max(0, now.involuntary - start.involuntary))
    }

    private static func read(_ pid: Int32) -> (voluntary: Int, involuntary: Int) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var voluntary = 0
        var involuntary = 0
        for task in tasks {
            guard let text = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") {
                if line.hasPrefix("voluntary_ctxt_switches:") {
                    voluntary += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
                } else if line.hasPrefix("nonvoluntary_ctxt_switches:") {
                    involuntary += Int(line.split(separator: ":").last?.trimmingCharacters(in: .whitespaces) ?? "") ?? 0
                }
            }
        }
        return (voluntary, involuntary)
    }
}

/// The CPU time a virtual machine's hypervisor gave to other guests over an interval (`steal` in `/proc/stat`), as a
/// share of all the machine's CPU time: the noise every timing of that interval carries on a shared machine.
struct StealMeter {
    private let start: (steal: UInt64, total: UInt64)?

    init() {
        start = Self.read()
    }

    /// The stolen share since `init` (0.1 = a tenth of every core's time); 0 where `/proc/stat` has no steal column.
    var share: Double {
        guard let start, let now = Self.read(), now.total > start.total, now.steal >= start.steal else { return 0 }
        return Double(now.steal - start.steal) / Double(now.total - start.total)
    }

    /// The machine's steal and total ticks: the `cpu` line's first eight columns (user to steal).
    private static func read() -> (steal: UInt64, total: UInt64)? {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first, line.hasPrefix("cpu ")
        else { return nil }
        let ticks = line.split(separator: " ").dropFirst().compactMap { UInt64($0) }
        guard ticks.count >= 8 else { return nil }
        return (ticks[7], ticks.prefix(8).reduce(0, +))
    }
}

extension ProcessProbe {
    /// How many file descriptors `pid` has open (entries of `/proc/<pid>/fd`).
    static func openFileCount(of pid: Int32) -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd"))?.count
    }
}
