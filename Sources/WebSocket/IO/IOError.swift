import Glibc

/// A failed system call, with the errno it left; what the event loop and sockets throw internally.
struct IOError: Error, Equatable, CustomStringConvertible {
    /// The system call that failed, e.g. "connect".
    var operation: String
    /// The errno value it reported.
    var errno: Int32

    var description: String { "\(operation) failed: \(String(cString: strerror(errno))) (errno \(errno))" }
}
