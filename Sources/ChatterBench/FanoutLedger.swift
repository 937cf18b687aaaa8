import ChatterBots
import Dispatch
import Synchronization

/// What the sandbox scenario's fan-out should produce and what it did: for each post (numbered, body
/// `f<number>`), who must receive it, when it was sent and acknowledged, and which recipient got it how many
/// times. Fed by every socket's reader; times are monotonic nanoseconds.
final class FanoutLedger: Sendable {
    /// One `message.send` of the plan.
    struct Post: Sendable {
        var conversationId: Conversation.ID
        /// The person (and so the device) who posts it.
        var sender: Int
        /// Every other member: each must get exactly one `message.new`.
        var recipients: [Int]
    }

    /// The counts so far.
    struct Tally: Sendable {
        var expected = 0
        /// First deliveries of a post to one of its recipients.
        var deliveries = 0
        /// Further deliveries of a post to a recipient who had it already.
        var duplicates = 0
        /// Deliveries of a post to the device that sent it.
        var toSender = 0
        /// Deliveries of a post to someone who is not a member of its conversation, or of an unknown post.
        var strays = 0
        var acks = 0
        var errorReplies = 0
        var lastDeliveryAt: UInt64 = 0
        var lastAckAt: UInt64 = 0
        /// From writing `message.send` to reading each first delivery.
        var latency = LatencySamples()
        /// From writing `message.send` to reading its `message.ack`.
        var ackLatency = LatencySamples()

        /// (post, recipient) pairs not delivered (yet).
        var missing: Int { expected - deliveries }
    }

    private struct State {
        var posts: [Post] = []
        var recipients: [Set<Int>] = []
        var sentAt: [UInt64] = []
        var settled: [Bool] = []
        /// By person: which posts reached them (allocated on their first delivery).
        var received: [[Bool]] = []
        var tally = Tally()
    }

    private let state = Mutex(State())

    /// Starts counting `posts` among `people` (earlier counts are dropped).
    func begin(_ posts: [Post], people: Int) {
        state.withLock { state in
            state = State()
            state.posts = posts
            state.recipients = posts.map { Set($0.recipients) }
            state.sentAt = Array(repeating: 0, count: posts.count)
            state.settled = Array(repeating: false, count: posts.count)
            state.received = Array(repeating: [], count: people)
            state.tally.expected = posts.reduce(0) { $0 + $1.recipients.count }
        }
    }

    /// Post `number` is about to be written.
    func sending(_ number: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock { state in
            guard number < state.sentAt.count else { return }
            state.sentAt[number] = now
        }
    }

    /// A `message.new` with `body` reached `person`'s socket.
    func delivered(body: String?, to person: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard let number = Self.number(body) else { return }
        state.withLock { state in
            guard number < state.posts.count, person < state.received.count else {
                state.tally.strays += 1
                return
            }
            if state.posts[number].sender == person {
                state.tally.toSender += 1
                return
            }
            guard state.recipients[number].contains(person) else {
                state.tally.strays += 1
                return
            }
            if state.received[person].isEmpty { state.received[person] = Array(repeating: false, count: state.posts.count) }
            if state.received[person][number] {
                state.tally.duplicates += 1
                return
            }
            state.received[person][number] = true
            state.tally.deliveries += 1
            state.tally.lastDeliveryAt = now
            state.tally.latency.add(nanoseconds: now &- state.sentAt[number])
        }
    }

    /// Post `number`'s `message.ack` arrived; true the first time (a repeated ack frees no slot).
    func acked(_ number: Int) -> Bool {
        let now = DispatchTime.now().uptimeNanoseconds
        return state.withLock { state in
            guard number < state.settled.count, !state.settled[number] else { return false }
            state.settled[number] = true
            state.tally.acks += 1
            state.tally.lastAckAt = now
            state.tally.ackLatency.add(nanoseconds: now &- state.sentAt[number])
            return true
        }
    }

    /// Post `number` was answered with an `error`; true the first time.
    func failed(_ number: Int) -> Bool {
        state.withLock { state in
            guard number < state.settled.count, !state.settled[number] else { return false }
            state.settled[number] = true
            state.tally.errorReplies += 1
            return true
        }
    }

    /// First deliveries and settled posts (acknowledged or refused) so far, cheaply (for polling).
    func progress() -> (deliveries: Int, settled: Int) {
        state.withLock { ($0.tally.deliveries, $0.tally.acks + $0.tally.errorReplies) }
    }

    /// Every count and latency so far.
    func tally() -> Tally {
        state.withLock { $0.tally }
    }

    /// `p<number>` (the id of a post's `message.send`) → number.
    static func postNumber(_ replyTo: String?) -> Int? {
        guard let replyTo, replyTo.hasPrefix("p") else { return nil }
        return Int(replyTo.dropFirst())
    }

    /// `f<number>` (a post's body) → number.
    static func number(_ body: String?) -> Int? {
        guard let body, body.hasPrefix("f") else { return nil }
        return Int(body.dropFirst())
    }
}
