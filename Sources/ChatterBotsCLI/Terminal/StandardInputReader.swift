import BotRuntime
import ChatterBots
import Foundation

/// Reads standard input line by line on a thread of its own, so a person's typing never blocks the cooperative
/// thread pool, and hands the lines over as an `AsyncStream`.
public enum StandardInputReader {
    /// The lines of standard input without their line breaks; the stream finishes at the end of input (Ctrl-D).
    ///
    /// The reading thread lives until the end of input: a blocking `read` cannot be interrupted portably, and
    /// the process exits when the client ends.
    public static func lines() -> AsyncStream<String> {
        let (stream, continuation) = AsyncStream<String>.makeStream(bufferingPolicy: .unbounded)
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                if case .terminated = continuation.yield(line) { return }
            }
            continuation.finish()
        }
        thread.name = "chat-stdin"
        thread.start()
        return stream
    }
}
