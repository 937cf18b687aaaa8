/// Which page of a conversation's messages to read (`GET /conversations/{id}/messages`).
public enum MessagePageQuery: Hashable, Sendable {
    /// `?afterSeq=N`: messages with `seq` > N, ascending (catching up).
    case after(seq: Int)
    /// `?beforeSeq=N`: messages with `seq` < N, descending (history).
    case before(seq: Int)
    /// Neither: the newest messages, descending.
    case latest
}
