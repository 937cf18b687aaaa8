@testable import BotRuntime
import ChatterBots
import Testing

@Suite struct RecentFriendRequestsTests {
    @Test func theOldestRequestIsForgottenPastTheCapacity() {
        let decided = RecentFriendRequests()
        let ids = (0...RecentFriendRequests.capacity).map { FriendRequest.ID("fr_\($0)") }
        for id in ids { decided.insert(id) }
        #expect(!decided.contains(ids[0]))
        #expect(decided.contains(ids[1]) && decided.contains(ids[RecentFriendRequests.capacity]))
    }

    @Test func insertingARequestAgainKeepsItsPlace() {
        let decided = RecentFriendRequests()
        let ids = (0..<RecentFriendRequests.capacity).map { FriendRequest.ID("fr_\($0)") }
        for id in ids { decided.insert(id) }
        decided.insert(ids[0])
        decided.insert(FriendRequest.ID("fr_new"))
        #expect(!decided.contains(ids[0]), "the first inserted is still the oldest")
        #expect(decided.contains(FriendRequest.ID("fr_new")))
    }

    @Test func insertingAKnownRequestSaysItWasKnown() {
        let recent = RecentFriendRequests()
        #expect(recent.insert(FriendRequest.ID("fr_1")))
        #expect(!recent.insert(FriendRequest.ID("fr_1")))
    }
}
