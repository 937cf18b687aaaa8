/// Which bots a console page asks for: a name filter, a state filter and a page, read from the query of
/// `/console/fleet` and `/console/events`. The server pages: a fleet may hold 10,000 bots.
package struct ConsoleFleetQuery: Sendable, Equatable {
    /// Bots whose name contains this (case-insensitive); nil: every name.
    package var name: String?
    /// Bots in this state; nil: every state.
    package var state: BotStatus.State?
    /// The page, from 1.
    package var page: Int
    /// Bots per page.
    package var pageSize: Int

    package static let defaultPageSize = 50
    package static let pageSizes = 1...500

    package init(name: String? = nil, state: BotStatus.State? = nil, page: Int = 1, pageSize: Int = defaultPageSize) {
        self.name = name
        self.state = state
        self.page = page
        self.pageSize = pageSize
    }

    /// Reads `name`, `state`, `page` and `pageSize` from a query; other parameters are refused.
    ///
    /// - Throws: `ConsoleInputError` naming the parameter and what it accepts.
    package init(queryItems: [(name: String, value: String)]) throws(ConsoleInputError) {
        self.init()
        for item in queryItems {
            switch item.name {
            case "name":
                name = item.value.isEmpty ? nil : item.value
            case "state":
                guard !item.value.isEmpty else { state = nil; continue }
                guard let value = BotStatus.State(rawValue: item.value) else {
                    let states = Self.states.joined(separator: ", ")
                    throw ConsoleInputError("state \"\(item.value)\" is not a bot state; use one of: \(states)")
                }
                state = value
            case "page":
                guard let value = Int(item.value), value >= 1 else {
                    throw ConsoleInputError("page must be a whole number from 1, found \"\(item.value)\"")
                }
                page = value
            case "pageSize":
                guard let value = Int(item.value), Self.pageSizes.contains(value) else {
                    throw ConsoleInputError("pageSize must be a whole number from \(Self.pageSizes.lowerBound) to "
                        + "\(Self.pageSizes.upperBound), found \"\(item.value)\"")
                }
                pageSize = value
            default:
                throw ConsoleInputError("unknown parameter \"\(item.name)\"; use name, state, page and pageSize")
            }
        }
    }

    /// Whether `status` passes the filters.
    package func matches(_ status: BotStatus) -> Bool {
        matches(name: status.name, state: status.state)
    }

    /// Whether a bot named `name` in `state` passes the filters.
    func matches(name botName: String, state botState: BotStatus.State) -> Bool {
        if let state, botState != state { return false }
        if let name, !botName.localizedCaseInsensitiveContains(name) { return false }
        return true
    }

    private static let states: [String] = [
        BotStatus.State.starting, .signingIn, .connecting, .synchronizing, .live, .reconnecting, .stopping, .stopped, .crashing,
    ].map(\.rawValue)
}

/// A console request the server cannot take as sent or carry out now: the sentence says what to do instead.
package struct ConsoleInputError: Error, Equatable, CustomStringConvertible {
    package var description: String
    /// Whether the failure is the server's (503, such as a sandbox that could not listen again) rather than a state
    /// the request does not fit (409) or bad input (400), which the route that catches it decides.
    package var isUnavailable: Bool

    package init(_ description: String, isUnavailable: Bool = false) {
        self.description = description
        self.isUnavailable = isUnavailable
    }
}
