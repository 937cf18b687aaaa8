import ChatterBots
import Foundation
import Synchronization

/// Who has a bot's store file in this process, between a bot's session and the requests that open the file of a bot
/// whose session does not have it (a quarantine route while the bot is stopped or starting). A store opens once in a
/// process (`StoreLock`), so the session claims the file, waiting for the requests that have it to be done: a bot's
/// start never fails because a request had its file. A request coming while the file is claimed waits for the claim:
/// once the claiming session has the store open, the request goes through that session; once the claim ends without
/// (the start failed, the bot stopped), the request takes the file. Keyed by the store's path, across every session
/// object of the process (a reload replaces a bot's session with a new one).
final class StoreHandOff<Session: Sendable>: Sendable {
    /// Where a request on the file is carried out.
    enum Turn {
        /// The request has the file: it opens it, and gives it back (`giveBack(_:)`) once done.
        case borrowed
        /// The session that claimed the file has its store open: the request goes through it.
        case session(Session)
        /// The claim outlasted the request's wait: the file was not taken.
        case stillClaimed
    }

    private struct Entry {
        var borrowers = 0
        var isClaimed = false
        /// The claiming session, once its store is open.
        var openedBy: Session?
        /// Claims waiting for the borrowers to be done.
        var claims: [CheckedContinuation<Void, Never>] = []
        /// Requests waiting for the claim to open the store or to end, by their number.
        var requests: [UInt64: CheckedContinuation<Turn, Never>] = [:]

        var isUnused: Bool { borrowers == 0 && !isClaimed && requests.isEmpty }
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var nextRequest: UInt64 = 0
        /// Who waits for a claim to wait (`waitUntilClaimWaits(_:)`), by path.
        var claimWatchers: [String: [CheckedContinuation<Void, Never>]] = [:]
        /// Who waits for a request to wait (`waitUntilRequestWaits(_:)`), by path.
        var requestWatchers: [String: [CheckedContinuation<Void, Never>]] = [:]
    }

    private let state = Mutex(State())

    /// A request takes the file at `path` at once; false while a session claims it (the request must not open it).
    func borrow(_ path: String) -> Bool {
        state.withLock { state in
            guard state.entries[path]?.isClaimed != true else { return false }
            state.entries[path, default: Entry()].borrowers += 1
            return true
        }
    }

    /// A request asks for the file at `path`: it has it at once unless a session claims it; else it waits until the
    /// session has its store open (then goes through it), until the claim ends (then has the file), or until
    /// `deadline` on `clock` (then `.stillClaimed`).
    func request(_ path: String, waitingUntil deadline: Date, on clock: any ChatterClock) async -> Turn {
        var expiry: Task<Void, Never>?
        let turn = await withCheckedContinuation { (continuation: CheckedContinuation<Turn, Never>) in
            let waiting = state.withLock { state -> (id: UInt64, watchers: [CheckedContinuation<Void, Never>])? in
                if let turn = Self.turnAtOnce(path, in: &state) {
                    continuation.resume(returning: turn)
                    return nil
                }
                state.nextRequest += 1
                state.entries[path]?.requests[state.nextRequest] = continuation
                return (state.nextRequest, state.requestWatchers.removeValue(forKey: path) ?? [])
            }
            guard let (id, watchers) = waiting else { return }
            // Started once the request waits, so that the deadline always finds it waiting or answered.
            expiry = Task {
                do {
                    try await clock.sleep(until: deadline)
                } catch {
                    return  // answered before its deadline
                }
                self.answer(path, request: id, with: .stillClaimed)
            }
            for watcher in watchers { watcher.resume() }
        }
        expiry?.cancel()
        return turn
    }

    /// The turn of a request on `path` that need not wait: the file while no session claims it (borrowed), else the
    /// claiming session once its store is open; nil while the claim opens the store.
    private static func turnAtOnce(_ path: String, in state: inout State) -> Turn? {
        guard let entry = state.entries[path], entry.isClaimed else {
            state.entries[path, default: Entry()].borrowers += 1
            return .borrowed
        }
        return entry.openedBy.map { .session($0) }
    }

    /// A request is done with the file at `path`: the last one lets a waiting claim go on.
    func giveBack(_ path: String) {
        let claims = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard var entry = state.entries[path] else { return [] }
            entry.borrowers -= 1
            guard entry.borrowers == 0 else {
                state.entries[path] = entry
                return []
            }
            let claims = entry.claims
            entry.claims = []
            state.entries[path] = entry.isUnused ? nil : entry
            return claims
        }
        for claim in claims { claim.resume() }
    }

    /// A session claims the file at `path`, and returns once no request has it.
    func claim(_ path: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                var entry = state.entries[path] ?? Entry()
                entry.isClaimed = true
                entry.openedBy = nil
                guard entry.borrowers > 0 else {
                    state.entries[path] = entry
                    return nil
                }
                entry.claims.append(continuation)
                state.entries[path] = entry
                return state.claimWatchers.removeValue(forKey: path) ?? []
            }
            guard let watchers else { return continuation.resume() }
            for watcher in watchers { watcher.resume() }
        }
    }

    /// The session that claimed the file at `path` has its store open: the requests waiting go through `session`,
    /// as do those coming until the claim ends.
    func opened(_ path: String, by session: Session) {
        let requests = state.withLock { state -> [CheckedContinuation<Turn, Never>] in
            guard var entry = state.entries[path], entry.isClaimed else { return [] }
            entry.openedBy = session
            let requests = Array(entry.requests.values)
            entry.requests = [:]
            state.entries[path] = entry
            return requests
        }
        for request in requests { request.resume(returning: .session(session)) }
    }

    /// The session is done with the file at `path` (its store closed, or never opened): the requests waiting take it.
    func release(_ path: String) {
        let requests = state.withLock { state -> [CheckedContinuation<Turn, Never>] in
            guard var entry = state.entries[path] else { return [] }
            let requests = Array(entry.requests.values)
            entry = Entry(borrowers: entry.borrowers + requests.count)
            state.entries[path] = entry.isUnused ? nil : entry
            return requests
        }
        for request in requests { request.resume(returning: .borrowed) }
    }

    /// Answers the waiting request `id` on `path` with `turn`, unless it was answered already.
    private func answer(_ path: String, request id: UInt64, with turn: Turn) {
        let request = state.withLock { state in state.entries[path]?.requests.removeValue(forKey: id) }
        request?.resume(returning: turn)
    }

    /// Returns once a claim of `path` waits for requests (for tests).
    func waitUntilClaimWaits(_ path: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = state.withLock { state -> Bool in
                guard state.entries[path]?.claims.isEmpty ?? true else { return true }
                state.claimWatchers[path, default: []].append(continuation)
                return false
            }
            if waits { continuation.resume() }
        }
    }

    /// Returns once a request on `path` waits for a claim (for tests).
    func waitUntilRequestWaits(_ path: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = state.withLock { state -> Bool in
                guard state.entries[path]?.requests.isEmpty ?? true else { return true }
                state.requestWatchers[path, default: []].append(continuation)
                return false
            }
            if waits { continuation.resume() }
        }
    }
}

extension StoreHandOff where Session == BotSession {
    /// The process's hand-off between bot sessions and requests, as wide as its store locks.
    static var shared: StoreHandOff<BotSession> { processStoreHandOff }
}

/// The one `StoreHandOff` of the process's bot sessions (a generic type holds no static storage).
private let processStoreHandOff = StoreHandOff<BotSession>()
