@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

/// Quarantined work is stored as JSON in the bot's store, and rows written by an earlier version must still read:
/// a row that does not fails every read of the quarantine, and the bot stops.
@Suite struct QuarantinedWorkFormatTests {
    static let ana = User(id: "01JANA", username: "ana", displayName: "Ana", avatarUrl: nil)

    @Test func aProfileChangeStoredByAnEarlierVersionStillReads() throws {
        let stored = #"{"event":{"_0":{"userUpdated":{"_0":{"avatarUrl":null,"displayName":"Ana","id":"01JANA","username":"ana"}}}}}"#
        let work = try JSONDecoder().decode(QuarantinedWork.self, from: Data(stored.utf8))
        #expect(work == .event(.userUpdated(Self.ana)))
    }

    @Test func aProfileChangeIsStoredAsEarlierVersionsStoredIt() throws {
        #expect(try StoreJSON.text(QuarantinedWork.event(.userUpdated(Self.ana)))
            == #"{"event":{"_0":{"userUpdated":{"_0":{"avatarUrl":null,"displayName":"Ana","id":"01JANA","username":"ana"}}}}}"#)
    }
}
