import Synchronization

/// Who has a bot's store file in this process, between a bot's session and the requests that open the file of a bot
/// whose session does not have it (a quarantine route while the bot is stopped or starting). A store opens once in a
/// process (`StoreLock`), so the session claims the file, waiting for the requests that have it to be done, and a
/// request is refused while the file is claimed: a bot's start never fails because a request had its file. Keyed by
/// the store's path, across every session object of the process (a reload replaces a bot's session with a new one).
final class StoreHandOff: Sendable {
    private struct Entry {
        var borrowers = 0
        var isClaimed = false
        /// Claims waiting for the borrowers to be done.
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// Who waits for a claim to wait (`waitUntilClaimWaits(_:)`), by path.
    private let watchers = Mutex<[String: [CheckedContinuation<Void, Never>]]>([:])

    /// The process's hand-off, as wide as its store locks.
    static let shared = StoreHandOff()

    /// A request takes the file at `path`; false while a session claims it (the request must not open it).
    func borrow(_ path: String) -> Bool {
        entries.withLock { entries in
            guard entries[path]?.isClaimed != true else { return false }
            entries[path, default: Entry()].borrowers += 1
            return true
        }
    }

    /// A request is done with the file at `path`: the last one lets a waiting claim go on.
    func giveBack(_ path: String) {
        let waiters = entries.withLock { entries -> [CheckedContinuation<Void, Never>] in
            guard var entry = entries[path] else { return [] }
            entry.borrowers -= 1
            guard entry.borrowers == 0 else {
                entries[path] = entry
                return []
            }
            entries[path] = entry.isClaimed ? Entry(isClaimed: true) : nil
            return entry.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// A session claims the file at `path`, and returns once no request has it.
    func claim(_ path: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let free = entries.withLock { entries -> Bool in
                entries[path, default: Entry()].isClaimed = true
                guard let entry = entries[path], entry.borrowers > 0 else { return true }
                entries[path]?.waiters.append(continuation)
                return false
            }
            if free {
                continuation.resume()
            } else {
                for watcher in watchers.withLock({ $0.removeValue(forKey: path) ?? [] }) { watcher.resume() }
            }
        }
    }

    /// The session is done with the file at `path` (its store closed, or never opened).
    func release(_ path: String) {
        entries.withLock { entries in
            guard let entry = entries[path] else { return }
            entries[path] = entry.borrowers > 0 ? Entry(borrowers: entry.borrowers) : nil
        }
    }

    /// Returns once a claim of `path` waits for requests (for tests).
    func waitUntilClaimWaits(_ path: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waits = watchers.withLock { watchers -> Bool in
                let waits = entries.withLock { !($0[path]?.waiters.isEmpty ?? true) }
                if !waits { watchers[path, default: []].append(continuation) }
                return waits
            }
            if waits { continuation.resume() }
        }
    }
}
