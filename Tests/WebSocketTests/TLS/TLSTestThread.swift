import Foundation

/// Runs blocking test code (plain socket I/O, waiting for a subprocess) on a thread of its own, never on
/// the cooperative pool, and hands its result back to async code.
enum TLSTestThread {
    static func run<Result: Sendable>(
        _ name: String, _ body: @escaping @Sendable () throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Swift.Result { try body() })
            }
            thread.name = name
            thread.start()
        }
    }
}
