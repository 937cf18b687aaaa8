import Glibc

/// A stack of its own for the signal handlers of the thread that installs it. A stack overflow raises SIGSEGV at the
/// thread's guard page, where no handler can run on the exhausted stack: without this the kernel ends the process
/// without a word, and neither the crash report nor Swift's backtracer (whose handlers ask for this stack,
/// `SA_ONSTACK`) says what overflowed. Swift's runtime gives one to the main thread only (with backtracing on).
package struct AlternateSignalStack: ~Copyable {
    /// Room for the crash report and Swift's backtracer; untouched pages cost no memory.
    static let size = 256 << 10
    private static let guardSize = max(Int(sysconf(Int32(_SC_PAGESIZE))), 4096)

    private let mapping: UnsafeMutableRawPointer

    /// Installs a new stack for the calling thread; nil when it cannot be mapped or installed (the thread then runs
    /// without one, as before).
    package init?() {
        let length = Self.guardSize + Self.size
        guard let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0),
            mapped != MAP_FAILED
        else { return nil }
        // A handler that overflows this stack too faults on the page below it instead of writing past it.
        var stack = stack_t(ss_sp: mapped.advanced(by: Self.guardSize), ss_flags: 0, ss_size: Self.size)
        guard mprotect(mapped, Self.guardSize, PROT_NONE) == 0, sigaltstack(&stack, nil) == 0 else {
            munmap(mapped, length)
            return nil
        }
        mapping = mapped
    }

    /// Uninstalls the stack from the calling thread, which must be the one that installed it, and unmaps it.
    deinit {
        var disabled = stack_t()
        disabled.ss_flags = Int32(SS_DISABLE)
        sigaltstack(&disabled, nil)
        munmap(mapping, Self.guardSize + Self.size)
    }
}
