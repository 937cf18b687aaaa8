/// Which bots a page of the console's fleet shows (`ConsoleFleetQuery`), chosen from the bots' names and counted
/// states before any status is read, so that a page reads the statuses of its own bots alone whatever the size of the
/// fleet. The bots that pass the filters come troubled first, as `/healthz` names them (stopped or crashing, then
/// reconnecting, then on their way up or down, each group in configuration order), then the live ones by name.
struct ConsoleFleetSelection: Sendable, Equatable {
    /// A bot as the selection knows it: its name, and its place and state as `HealthTally` counts them.
    struct Listed: Sendable, Equatable {
        var name: String
        var counted: HealthTally.Counted
    }

    /// Bots that pass the filters.
    var matching: Int
    /// The page shown (from 1; the last page when the one asked for is past it).
    var page: Int
    var pages: Int
    var pageSize: Int
    /// The page's bots, in order.
    var bots: [Listed]

    /// The page `query` asks for of `listed` (in any order).
    init(_ listed: [Listed], query: ConsoleFleetQuery) {
        let matches = listed.filter { query.matches(name: $0.name, state: $0.counted.state) }
        matching = matches.count
        pageSize = query.pageSize
        pages = max(1, (matches.count + query.pageSize - 1) / query.pageSize)
        page = min(query.page, pages)
        bots = Array(matches.sorted(by: Self.precedes).dropFirst((page - 1) * pageSize).prefix(pageSize))
    }

    /// Whether `first` comes before `second`: the troubled by urgency then configuration order, before the live
    /// ones by name.
    static func precedes(_ first: Listed, _ second: Listed) -> Bool {
        switch (HealthTally.urgency(of: first.counted.state), HealthTally.urgency(of: second.counted.state)) {
        case let (firstUrgency?, secondUrgency?):
            firstUrgency != secondUrgency ? firstUrgency < secondUrgency : first.counted.rank < second.counted.rank
        case (.some, nil): true
        case (nil, .some): false
        case (nil, nil): first.name != second.name ? first.name < second.name : first.counted.rank < second.counted.rank
        }
    }
}
