extension Duration {
    /// `count` minutes, as tests write virtual time: `harness.advance(by: .minutes(10))`.
    public static func minutes(_ count: Int) -> Duration { .seconds(count * 60) }

    /// `count` hours of virtual time.
    public static func hours(_ count: Int) -> Duration { .seconds(count * 3_600) }

    /// `count` days of 24 hours (across a DST change a local day may be 23 or 25 hours).
    public static func days(_ count: Int) -> Duration { .seconds(count * 86_400) }
}
