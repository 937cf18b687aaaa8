/// How much less a request asks for after its response was refused as larger than this client accepts: half as
/// many of what it counts (conversations per `sync.request`, messages per page), rounded down, down to one.
///
/// Asking for the same again would be refused the same way, and halving reaches a size that fits in a few steps
/// whatever the sizes. At one, only a larger limit helps. `SyncPlan` and `BackfillPageSize` both shrink by it.
enum ResponseSizeHalving {
    /// The count the next request asks for after a response to one asking for `count` was refused as too large:
    /// half of it, at least one; nil when it asked for one (or fewer) already.
    static func next(after count: Int) -> Int? {
        guard count > 1 else { return nil }
        return count / 2
    }
}
