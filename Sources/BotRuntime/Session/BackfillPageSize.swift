/// How many messages each `GET /conversations/{id}/messages?afterSeq=` page of a backfill asks for.
///
/// A page of the configured size (100 by default) of messages of up to about 1 MB each (4,096 characters counted
/// as grapheme clusters) can be larger than the HTTP client accepts (16 MiB by default): a refused page is asked
/// for again with fewer messages (`ResponseSizeHalving`). The smaller size holds for the rest of the fetch: the
/// following messages of the conversation are likely as large.
struct BackfillPageSize: Sendable, Equatable {
    /// The `limit` of the next page.
    private(set) var limit: Int

    /// Starts at `configured` messages a page (at least one).
    init(configured: Int) {
        self.limit = max(1, configured)
    }

    /// The page was refused as too large: the next asks for fewer messages. Returns false when it asked for one
    /// already (a single message over the client's limit: only a larger limit helps).
    mutating func responseRefused() -> Bool {
        guard let fewer = ResponseSizeHalving.next(after: limit) else { return false }
        limit = fewer
        return true
    }
}
