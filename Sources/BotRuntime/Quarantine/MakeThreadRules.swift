import Foundation

/// Which kinds' `make` may be called, and on how many threads, so that makes that never return hold a bounded number
/// of threads (and in-flight slots) however often their bots are started or reloaded: the rules of `docs/running.md`
/// as a value that takes requests and returns, and says what to do.
///
/// - At most `width` makes run within their timeout at once; one more waits until one returns or is given up.
/// - A make given up at its timeout keeps its thread until it returns (a thread cannot be stopped). The first
///   `spares` of them are replaced (the width stays whole); each one beyond takes a thread from the width, so the
///   process never holds more than `width + spares` make threads. With none left, a make is refused at once.
/// - A kind whose earlier make was given up and has not returned is not called again until it returns: each call
///   would most likely hang too, and hold one more thread for good. A request refused so may be held back
///   (`holdBack(kind:)`): it is readmitted, to ask again, once no make of its kind given up still runs.
struct MakeThreadRules: Sendable, Equatable {
    /// What names a call while it runs.
    typealias CallID = UInt64

    /// A `make` running on its thread.
    struct Call: Sendable, Equatable {
        var kind: String
        var bot: String
        /// When its timeout gives up on it; past it, the call holds its thread as a make given up.
        var deadline: Date
    }

    /// What to do with a request to call a kind's `make`.
    enum Decision: Sendable, Equatable {
        /// Call it now, on a thread of its own, as `id`; it is given up at `deadline`.
        case start(CallID, deadline: Date)
        /// Every thread the width allows runs a make within its time: ask again once one returns, or at `until`,
        /// when the first of them is given up.
        case wait(until: Date)
        /// Do not call it: the bot does not start.
        case refuse(Refusal)
    }

    /// Why a kind's `make` is not called; each says what to do.
    enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// An earlier make of `kind`, for `bot`, was given up at its timeout and has not returned.
        case kindStillRunning(kind: String, bot: String)
        /// Makes given up at their timeout (`count`) hold every make thread the process may have.
        case noThreadLeft(givenUp: Int)

        var description: String {
            switch self {
            case .kindStillRunning(let kind, let bot):
                "kind \"\(kind)\" is not called: its make for bot \"\(bot)\" was given up at its timeout and has not "
                    + "returned, and a kind's make is not called again until it does (each call would hold a thread "
                    + "for good): run by a supervisor (as `run` runs every bot), the bot starts by itself once that "
                    + "make returns; fix the kind's make so that it returns within the handler timeout, and restart "
                    + "the process if it never does"
            case .noThreadLeft(let count):
                "no thread left to make the bot: \(count) makes given up at their timeout still run and hold every "
                    + "make thread of the process: fix the kinds whose make did not return (logged as \"did not make "
                    + "the bot within\"), then restart the process"
            }
        }

        /// A few words for the bot's last error.
        var summary: String {
            switch self {
            case .kindStillRunning(let kind, _): "an earlier make of kind \"\(kind)\" still runs past its timeout"
            case .noThreadLeft(let count): "\(count) makes past their timeout hold every make thread"
            }
        }
    }

    /// The most makes that run within their timeout at once.
    let width: Int
    /// How many makes given up at their timeout are replaced by a new thread.
    let spares: Int
    /// The makes whose code has not returned, given up or not.
    private(set) var calls: [CallID: Call] = [:]
    /// The requests refused because a make of their kind was given up, held back until none of its kind is: their
    /// kind, by the id that names them.
    private(set) var heldBack: [CallID: String] = [:]
    private var nextID: CallID = 0

    /// Rules for `width` makes at once (at least one), replacing up to `spares` given up.
    init(width: Int, spares: Int) {
        self.width = max(1, width)
        self.spares = max(0, spares)
    }

    /// How many threads run a kind's make now: within their timeout or given up.
    var threads: Int { calls.count }

    /// How many makes run past their timeout at `now`.
    func givenUp(at now: Date) -> Int {
        calls.values.count(where: { $0.deadline <= now })
    }

    /// How many makes may run within their timeout at `now`: the width, less the makes given up beyond the spares.
    func capacity(at now: Date) -> Int {
        max(0, width - max(0, givenUp(at: now) - spares))
    }

    /// A request at `now` to call `kind`'s make for `bot`, which has `timeout` to return once started.
    mutating func request(kind: String, bot: String, timeout: Duration, now: Date) -> Decision {
        if let hung = calls.values.filter({ $0.kind == kind && $0.deadline <= now }).min(by: { $0.deadline < $1.deadline }) {
            return .refuse(.kindStillRunning(kind: kind, bot: hung.bot))
        }
        let capacity = capacity(at: now)
        guard capacity > 0 else { return .refuse(.noThreadLeft(givenUp: givenUp(at: now))) }
        let inTime = calls.values.filter { $0.deadline > now }
        guard inTime.count >= capacity else {
            nextID += 1
            let deadline = now.addingTimeInterval(timeout.timeInterval)
            calls[nextID] = Call(kind: kind, bot: bot, deadline: deadline)
            return .start(nextID, deadline: deadline)
        }
        // Capacity above zero with every slot taken: some make runs within its time, so there is a first deadline.
        return .wait(until: inTime.map(\.deadline).min() ?? now)
    }

    /// What follows from a make returning.
    struct Returned: Sendable, Equatable {
        /// Whether it was running.
        var wasRunning: Bool
        /// The requests held back that may ask again: no make of their kind given up runs any more.
        var readmitted: [CallID]
    }

    /// The make `id` returned at `now` (within its time or not): its thread ends, and the requests held back for its
    /// kind are readmitted unless another make of the kind given up still runs.
    @discardableResult
    mutating func returned(_ id: CallID, now: Date) -> Returned {
        let wasRunning = calls.removeValue(forKey: id) != nil
        let stillHung = Set(calls.values.filter { $0.deadline <= now }.map(\.kind))
        let readmitted = heldBack.filter { !stillHung.contains($0.value) }.keys.sorted()
        for id in readmitted { heldBack.removeValue(forKey: id) }
        return Returned(wasRunning: wasRunning, readmitted: readmitted)
    }

    /// Holds back a request for `kind` refused because a make of the kind was given up (`Refusal.kindStillRunning`):
    /// `returned(_:now:)` readmits it, by the id returned, once no make of its kind given up runs.
    mutating func holdBack(kind: String) -> CallID {
        nextID += 1
        heldBack[nextID] = kind
        return nextID
    }

    /// Forgets the request held back as `id`: nobody waits for it any more.
    mutating func forget(heldBack id: CallID) {
        heldBack.removeValue(forKey: id)
    }
}
