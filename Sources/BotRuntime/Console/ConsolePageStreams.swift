import Synchronization

/// The console's open page streams (`GET /console/stream`) by the random id each announces in its `ready` event,
/// which `POST /console/stream` names to change what that stream carries.
package final class ConsolePageStreams: Sendable {
    private let streams = Mutex<[String: ConsolePageStream]>([:])

    package init() {}

    /// Registers a stream that writes with `write`; returns its id.
    func open(write: @escaping @Sendable ([UInt8]) async -> Bool) -> String {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<16).map { _ in String(UInt8.random(in: .min ... .max, using: &generator), radix: 16) }
            .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
        let stream = ConsolePageStream(write: write)
        streams.withLock { $0[id] = stream }
        return id
    }

    /// The open stream `id`, if any.
    func stream(_ id: String) -> ConsolePageStream? {
        streams.withLock { $0[id] }
    }

    /// Forgets stream `id` and stops its parts: its connection closed.
    func close(_ id: String) {
        streams.withLock { $0.removeValue(forKey: id) }?.stop()
    }
}
