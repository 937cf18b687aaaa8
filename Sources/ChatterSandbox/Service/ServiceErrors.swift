import ChatterBots
import SQLite

// The service's errors, phrased once: each says what is wrong and, where it helps, what to do.
extension ChatterErrorBody {
    static func validation(field: String, _ message: String) -> ChatterErrorBody {
        ChatterErrorBody(code: .validationFailed, message: message, details: ["field": .string(field)])
    }

    static func notFound(_ message: String) -> ChatterErrorBody {
        ChatterErrorBody(code: .notFound, message: message)
    }

    static func forbidden(_ message: String) -> ChatterErrorBody {
        ChatterErrorBody(code: .forbidden, message: message)
    }

    static func internalError(_ message: String) -> ChatterErrorBody {
        ChatterErrorBody(code: .internalError, message: message)
    }

    static let conversationNotFound = notFound("No such conversation.")
    static let messageNotFound = notFound("No such message.")
    static let userNotFound = notFound("No such user.")
    static let friendRequestNotFound = notFound("No such friend request.")
    static let notFriends = ChatterErrorBody(code: .notFriends, message: "You can only message friends.")
    static let invalidCredentials = ChatterErrorBody(code: .invalidCredentials, message: "Wrong username or password.")
    static let invalidRefreshToken = ChatterErrorBody(
        code: .invalidRefreshToken, message: "The refresh token is unknown, already used, or its device was signed out. Sign in again.")
}

extension ChatterService {
    /// Runs `body` in one write transaction; domain errors pass through, storage failures become `INTERNAL`.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(ChatterErrorBody) -> T {
        do {
            return try await store.write(body)
        } catch let error as ChatterErrorBody {
            throw error
        } catch {
            throw .internalError("The sandbox's store failed: \(error)")
        }
    }

    /// Runs `body` in a read-only transaction; domain errors pass through, storage failures become `INTERNAL`.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(ChatterErrorBody) -> T {
        do {
            return try await store.read(body)
        } catch let error as ChatterErrorBody {
            throw error
        } catch {
            throw .internalError("The sandbox's store failed: \(error)")
        }
    }
}
