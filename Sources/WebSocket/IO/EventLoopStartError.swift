import Glibc

/// The event loops of an `EventLoopGroup` could not start: the system refused the epoll instance or the eventfd
/// each loop needs, almost always because the process has no file descriptor left.
///
/// Surfaces from the call that needed a loop (`WebSocketClient.connect`, `HTTPServer.start`) instead of crashing
/// the process; the group tries again on the next call, so freeing descriptors is enough to recover.
public struct EventLoopStartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The system call that failed: `epoll_create1`, `eventfd` or `epoll_ctl`.
    public var operation: String
    /// The errno it left (EMFILE: the process's RLIMIT_NOFILE is reached; ENFILE: the system's limit).
    public var errno: Int32

    /// The error for `operation` failing with `errno`.
    public init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// What to do about it, for the error's errno.
    public var advice: String {
        switch errno {
        case EMFILE:
            "the process has no file descriptor left: raise RLIMIT_NOFILE (`ulimit -n`, up to the hard limit "
                + "`ulimit -Hn`) or open fewer files and sockets"
        case ENFILE:
            "the system has no file descriptor left: raise fs.file-max or stop processes holding many files"
        case ENOMEM:
            "the system is out of memory for kernel objects: free memory or raise fs.epoll.max_user_watches"
        default:
            "check the process's limits (RLIMIT_NOFILE) and the system's"
        }
    }

    public var description: String {
        "cannot start the event loops: \(operation) failed: \(String(cString: strerror(errno))) (errno \(errno)); \(advice)"
    }

    init(_ error: IOError) {
        self.init(operation: error.operation, errno: error.errno)
    }
}
