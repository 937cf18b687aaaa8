import Dispatch
import Foundation
import Glibc

/// Where formatted log lines go. `write(line:)` must return at once (it is called from actors and handlers on the
/// cooperative pool); `flush()` returns when everything written so far has reached its destination.
public protocol LogOutput: Sendable {
    /// Queues one line (without its newline) for output.
    func write(line: String)
    /// Waits until every line queued before the call is written.
    func flush() async
}

/// Writes lines to a file descriptor (standard error by default) from a serial dispatch queue of its own, so that a
/// slow terminal or a full pipe never blocks the caller's thread; lines keep their order.
public final class FileDescriptorLogOutput: LogOutput {
    /// Standard error: the default destination of logs.
    public static let standardError = FileDescriptorLogOutput(fileDescriptor: STDERR_FILENO, label: "stderr")
    /// Standard output: where the command line prints what it is running.
    public static let standardOutput = FileDescriptorLogOutput(fileDescriptor: STDOUT_FILENO, label: "stdout")

    private let fileDescriptor: Int32
    private let queue: DispatchQueue

    /// Writes to `fileDescriptor`, which stays owned by the caller (it is not closed).
    public init(fileDescriptor: Int32, label: String = "log") {
        self.fileDescriptor = fileDescriptor
        self.queue = DispatchQueue(label: "chatterbots.log.\(label)")
    }

    public func write(line: String) {
        let bytes = Array((line + "\n").utf8)
        let descriptor = fileDescriptor
        queue.async { Self.writeAll(bytes, to: descriptor) }
    }

    public func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { continuation.resume() }
        }
    }

    /// Writes every byte, retrying after interruptions and partial writes; gives up silently when the descriptor
    /// is gone (a closed pipe), since there is nowhere left to report it.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }
}
