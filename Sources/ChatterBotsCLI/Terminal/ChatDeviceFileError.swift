import BotRuntime
import ChatterBots
import Foundation

/// The device file could not be read or written. The client goes on as a new device: the cost is one more
/// entry in the person's device list, not lost messages.
public struct ChatDeviceFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The device file.
    public var url: URL
    /// What went wrong with it, in words (`cannot be read: …`).
    public var problem: String

    public init(url: URL, problem: String) {
        self.url = url
        self.problem = problem
    }

    public var description: String {
        "the device file \(url.path) \(problem); signing in as a new device (delete the file or fix its directory's permissions)"
    }
}
