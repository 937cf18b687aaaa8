import ChatterBots
import Dispatch
import Foundation
import Synchronization

/// The load server's own senders: people who live in the server process, so that flooding a bot costs no
/// sockets, frames or JSON on the senders' side. Each sends through the ledger exactly as a person's socket
/// would (a stored message, `message.new` to the bot's devices) and is told when the bot answers.
final class VirtualSenders: Sendable {
    /// One conversation being flooded.
    private final class Track: Sendable {
        let caller: LoadLedger.Caller
        let conversationId: Conversation.ID
        /// This track's number among all the server's tracks, part of its messages' keys.
        let ordinal: UInt64
        let firstNumber: Int
        let credits: Credits
        let log: Mutex<Log>

        struct Log {
            var sentAt: [UInt64]
            var repliedAt: [UInt64]
            var replies = 0
            var duplicates = 0
        }

        init(caller: LoadLedger.Caller, conversationId: Conversation.ID, ordinal: UInt64, count: Int, firstNumber: Int, window: Int) {
            self.caller = caller
            self.conversationId = conversationId
            self.ordinal = ordinal
            self.firstNumber = firstNumber
            self.credits = Credits(window)
            self.log = Mutex(Log(sentAt: Array(repeating: 0, count: count), repliedAt: Array(repeating: 0, count: count)))
        }
    }

    private let tracks = Mutex<[Conversation.ID: Track]>([:])
    /// Makes the senders' clientMessageIds unique across servers and runs: the first half of every key. The second
    /// half is the flood's track number and the message's number, so keys cost no random bytes (a system call each).
    private let runBits = UInt64.random(in: 0...UInt64.max)
    /// The number of tracks started so far; each track's keys carry its own number, so a person who floods two
    /// conversations, or one conversation twice, never repeats a key (a repeated key is answered with the earlier ack).
    private let trackCount = Atomic<UInt64>(0)

    /// Notes a message the bot sent; called by the server for every stored message not sent by a virtual sender.
    func observe(_ message: Message) {
        guard let track = tracks.withLock({ $0[message.conversationId] }), message.senderId != track.caller.userId,
            let body = message.body, let dot = body.lastIndex(of: "."), let number = Int(body[body.index(after: dot)...])
        else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let index = number - track.firstNumber
        let fresh = track.log.withLock { log -> Bool in
            guard index >= 0, index < log.repliedAt.count else { return false }
            guard log.repliedAt[index] == 0 else {
                log.duplicates += 1
                return false
            }
            log.repliedAt[index] = now
            log.replies += 1
            return true
        }
        if fresh { track.credits.release() }
    }

    /// Runs `request`: every conversation's person sends concurrently; `send` stores a message and delivers it.
    func flood(
        _ request: FloodRequest, callers: [Conversation.ID: LoadLedger.Caller],
        send: @escaping @Sendable ([MessageSend], LoadLedger.Caller) async -> Void
    ) async -> FloodResult {
        let window = request.intervalNanoseconds == nil ? max(1, request.window) : Int.max / 2
        let started = tracks.withLock { tracks -> [Track] in
            request.conversations.compactMap { id in
                guard let caller = callers[id] else { return nil }
                let track = Track(
                    caller: caller, conversationId: id, ordinal: trackCount.add(1, ordering: .relaxed).oldValue,
                    count: request.count, firstNumber: request.firstNumber, window: window)
                tracks[id] = track
                return track
            }
        }
        let total = started.count * request.count
        let start = ContinuousClock.now
        let runBits = self.runBits
        await withTaskGroup(of: Void.self) { group in
            for (index, track) in started.enumerated() {
                group.addTask {
                    let offset = request.intervalNanoseconds.map { Duration.nanoseconds($0) * (Double(index) / Double(started.count)) }
                    let tag = "\(track.conversationId.rawValue.suffix(4))"
                    var number = 0
                    while number < request.count {
                        if let interval = request.intervalNanoseconds, let offset {
                            try? await Task.sleep(until: start + offset + .nanoseconds(interval) * number, clock: .continuous)
                        }
                        // Paced: one at a time, on its schedule. Flooding: every message the window allows now, in
                        // one write, as a busy person's burst arrives.
                        await track.credits.acquire()
                        let more = request.intervalNanoseconds == nil
                            ? track.credits.acquireAvailable(upTo: min(max(1, request.burst), request.count - number) - 1) : 0
                        let numbers = number..<(number + 1 + more)
                        let messages = numbers.map { number in
                            MessageSend(
                                conversationId: track.conversationId,
                                clientMessageId: Self.clientMessageId(
                                    runBits: runBits, track: track.ordinal, number: request.firstNumber + number),
                                content: MessageContent(kind: .text, body: "m\(tag).\(request.firstNumber + number)"))
                        }
                        let now = DispatchTime.now().uptimeNanoseconds
                        track.log.withLock { log in for number in numbers { log.sentAt[number] = now } }
                        await send(messages, track.caller)
                        number = numbers.upperBound
                    }
                }
            }
        }
        let deadline = start + .seconds(request.timeoutSeconds)
        while ContinuousClock.now < deadline {
            if started.reduce(0, { $0 + $1.log.withLock { $0.replies } }) >= total { break }
            try? await Task.sleep(for: .microseconds(500))
        }
        tracks.withLock { tracks in for track in started { tracks[track.conversationId] = nil } }
        var latencies: [UInt64] = []
        var replies = 0
        var duplicates = 0
        var firstSent = UInt64.max
        var lastReply: UInt64 = 0
        for track in started {
            let log = track.log.withLock { $0 }
            replies += log.replies
            duplicates += log.duplicates
            for (sent, replied) in zip(log.sentAt, log.repliedAt) {
                latencies.append(replied == 0 || sent == 0 ? 0 : replied &- sent)
                if sent != 0 { firstSent = min(firstSent, sent) }
                lastReply = max(lastReply, replied)
            }
        }
        // From the first message sent to the last reply received.
        let elapsed = lastReply > firstSent ? Double(lastReply - firstSent) / 1e9 : (ContinuousClock.now - start).seconds
        return FloodResult(
            elapsedSeconds: elapsed, sent: total, replies: replies, duplicateReplies: duplicates, latencyNanoseconds: latencies)
    }

    /// How many message numbers a track's keys can tell apart: a flood's numbers are below it (`FloodRequest`).
    static let messageNumbers = 1 << 40

    /// A sender's key in UUID text, which the ledger keeps as 128 bits: the run's bits, then the track's number
    /// (its low 24 bits: a server would have to start 16 million floods before two tracks' keys could meet) and
    /// the message's number (40 bits; numbers outside them are refused with the flood request).
    static func clientMessageId(runBits: UInt64, track: UInt64, number: Int) -> ClientMessageID {
        let low = track << 40 | UInt64(truncatingIfNeeded: number) & UInt64(messageNumbers - 1)
        return ClientMessageID(IdempotencyTable.UUIDBits(high: runBits, low: low).text)
    }
}
