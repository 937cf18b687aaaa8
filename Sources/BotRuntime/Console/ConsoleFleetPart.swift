import Foundation

/// The fleet as a part of a console event stream: `{"name", "state", "page", "pageSize"}` (as the query of
/// `/console/fleet`) sends a `fleet` event with that page at once and whenever it changes, checked every second
/// while the stream is open, and a comment after 15 s of quiet so that proxies keep the stream.
struct ConsoleFleetPart: ConsoleStreamPart {
    let name = "fleet"
    let acts = false
    /// The page a query asks for, now.
    let page: @Sendable (ConsoleFleetQuery) async -> ConsoleFleetPage

    func feed(for choice: [String: Any]) throws(ConsoleInputError) -> ConsoleStreamFeed {
        var items: [(name: String, value: String)] = []
        for (key, value) in choice {
            if let text = value as? String {
                items.append((key, text))
            } else if let number = value as? Int {
                items.append((key, String(number)))
            } else {
                throw ConsoleInputError("fleet.\(key) takes a string or a number")
            }
        }
        return feed(for: try ConsoleFleetQuery(queryItems: items))
    }

    func feed(for query: ConsoleFleetQuery) -> ConsoleStreamFeed {
        { [page] events in
            var last: [UInt8] = []
            var quietSeconds = 0
            while !Task.isCancelled {
                let json = await page(query).json
                var bytes: [UInt8] = []
                if json != last {
                    bytes = events.event("fleet", json)
                    last = json
                    quietSeconds = 0
                } else if quietSeconds >= 15 {
                    bytes = Array(": still here\n\n".utf8)
                    quietSeconds = 0
                }
                guard await events.send(bytes) else { return }
                try? await Task.sleep(for: .seconds(1))
                quietSeconds += 1
            }
        }
    }
}
