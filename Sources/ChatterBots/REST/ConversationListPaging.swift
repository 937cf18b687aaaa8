/// How `GET /conversations?updatedSince=` is paged so that no conversation is skipped.
///
/// The contract pages "with the last `updatedAt`" and does not promise distinct times: conversations changed in the
/// millisecond of a full page's last one can be left for the next page, which a page asking after that millisecond
/// skips. So each page after a full one asks from one millisecond earlier, listing that millisecond's conversations
/// again (callers record them idempotently). A full page all of one millisecond cannot be passed that way: the next
/// asks after it, and any more of that millisecond are skipped (the endpoint has no other cursor).
package struct ConversationListPaging: Sendable, Equatable {
    /// What follows a page.
    package enum Next: Sendable, Equatable {
        /// It was the last page.
        case done
        /// Ask for the next page from `updatedSince`.
        case more
        /// Ask for the next page from `updatedSince`, after a millisecond whose conversations filled a whole page:
        /// any more of that millisecond are skipped.
        case morePastAFullMillisecond
    }

    /// The most conversations the service lists a page: a shorter page is the last.
    package let pageSize: Int
    /// The `updatedSince` of the next request; nil for every conversation.
    package private(set) var updatedSince: Timestamp?

    /// Paging from the start, or after an earlier listing whose newest `updatedAt` was `newest`: from one
    /// millisecond before it, since a conversation changed in that millisecond after the listing was read has
    /// that `updatedAt` too.
    package init(pageSize: Int, resumingAfter newest: Timestamp? = nil) {
        self.pageSize = max(1, pageSize)
        self.updatedSince = newest.map(Self.millisecondBefore)
    }

    /// `page` came for `updatedSince`: moves `updatedSince` on and says whether to ask again.
    package mutating func pageReceived(_ page: [Conversation]) -> Next {
        guard page.count >= pageSize, let newest = page.map(\.updatedAt).max() else { return .done }
        // A service that ignored `updatedSince` would list the same page for ever.
        if let since = updatedSince, newest <= since { return .done }
        if page.allSatisfy({ $0.updatedAt == newest }) {
            updatedSince = newest
            return .morePastAFullMillisecond
        }
        updatedSince = Self.millisecondBefore(newest)
        return .more
    }

    private static func millisecondBefore(_ time: Timestamp) -> Timestamp {
        let (earlier, overflow) = time.millisecondsSince1970.subtractingReportingOverflow(1)
        return overflow ? time : Timestamp(millisecondsSince1970: earlier)
    }
}
