/// A part of what the console page's one event stream (`GET /console/stream`) carries: the fleet, the log tail, a
/// chat. The page sends each part's choice with `POST /console/stream`; the part then sends its events until the page
/// changes or drops the choice, or the stream closes. One stream per page, because a browser opens at most six
/// connections to a host: a page holding one stream per part left a second page none for its requests.
package protocol ConsoleStreamPart: Sendable {
    /// The part's key in `POST /console/stream`, and the prefix of its events' names (`ConsoleEventSink`).
    var name: String { get }

    /// Whether running the part acts for someone (the chat signs a test user in): then only the console's own page,
    /// or a request with the control token, may ask for it.
    var acts: Bool { get }

    /// What sends the events of `choice`, the JSON object the page sent for this part.
    ///
    /// - Throws: `ConsoleInputError` saying what a choice holds.
    func feed(for choice: [String: Any]) throws(ConsoleInputError) -> ConsoleStreamFeed
}

/// Sends one part's events into `events` until it has nothing more to send, the stream closes, or its task is
/// cancelled (the page changed its choice, or left); it then releases what it listened to.
package typealias ConsoleStreamFeed = @Sendable (_ events: ConsoleEventSink) async -> Void
