import Foundation
import ChatterBots
import Testing

@testable import ChatterSandbox

@Suite("Fault plan: duplicate, reorder, delay and lose acks per device")
struct FaultPlanTests {
    let phone: Device.ID = "01JBPHONE00000000000000000"
    let laptop: Device.ID = "01JBLAPTOP0000000000000000"

    @Test func withoutFaultsFramesPassUnchanged() {
        var plan = FaultPlan<String>()
        #expect(plan.messageNew("m1", to: phone) == ["m1"])
        let dropped = plan.takeDropBeforeAck(phone)
        #expect(!dropped)
        #expect(plan.ackDelay(phone) == nil)
    }

    @Test func duplicateSendsEachMessageNewExtraTimes() {
        var plan = FaultPlan<String>()
        let armed = plan.arm(.duplicateMessageNew(copies: 2), on: phone)
        #expect(armed)
        #expect(plan.messageNew("m1", to: phone) == ["m1", "m1", "m1"])
        #expect(plan.messageNew("m1", to: laptop) == ["m1"])
    }

    @Test func duplicateEventsRepeatsEveryNamedTypeAndNoOther() {
        var plan = FaultPlan<String>()
        let others = SandboxFault.duplicableEventTypes.subtracting(["message.new"])
        _ = plan.arm(.duplicateEvents(types: others, copies: 1), on: phone)
        for type in others {
            #expect(plan.event(type, type: type, to: phone) == [type, type], "\(type)")
            #expect(plan.event(type, type: type, to: laptop) == [type], "\(type) on another device")
        }
        #expect(plan.event("m1", type: "message.new", to: phone) == ["m1"])
        #expect(plan.clear(phone).isEmpty)
        #expect(plan.event("u1", type: "message.updated", to: phone) == ["u1"])
    }

    @Test func duplicateEventsOfMessageNewIsDuplicateMessageNew() {
        var plan = FaultPlan<String>()
        _ = plan.arm(.duplicateEvents(types: ["message.new", "typing"], copies: 2), on: phone)
        #expect(plan.event("m1", type: "message.new", to: phone) == ["m1", "m1", "m1"])
        #expect(plan.event("p1", type: "presence", to: phone) == ["p1"])
    }

    @Test func reorderSwapsPairsAndClearingReleasesTheHeldFrame() {
        var plan = FaultPlan<String>()
        _ = plan.arm(.reorderMessageNew, on: phone)
        #expect(plan.messageNew("m1", to: phone) == [])
        #expect(plan.messageNew("m2", to: phone) == ["m2", "m1"])
        #expect(plan.messageNew("m3", to: phone) == [])
        #expect(plan.clear(phone) == ["m3"])
        #expect(plan.messageNew("m4", to: phone) == ["m4"])
    }

    @Test func dropBeforeAckIsOneShot() {
        var plan = FaultPlan<String>()
        _ = plan.arm(.dropBeforeNextAck, on: phone)
        let laptopDropped = plan.takeDropBeforeAck(laptop)
        let firstSend = plan.takeDropBeforeAck(phone)
        let secondSend = plan.takeDropBeforeAck(phone)
        #expect(!laptopDropped)
        #expect(firstSend)
        #expect(!secondSend)
        #expect(!plan.hasFaults(phone))
    }

    @Test func ackDelayLastsUntilCleared() {
        var plan = FaultPlan<String>()
        _ = plan.arm(.delayAcks(.seconds(2)), on: phone)
        #expect(plan.ackDelay(phone) == .seconds(2))
        #expect(plan.ackDelay(phone) == .seconds(2))
        _ = plan.clear(phone)
        #expect(plan.ackDelay(phone) == nil)
    }

    @Test func immediateFaultsAreNotStored() {
        var plan = FaultPlan<String>()
        for fault in [SandboxFault.dropSocket, .close(code: 4001, reason: "x"), .expireToken, .revokeDevice] {
            let stored = plan.arm(fault, on: phone)
            #expect(!stored, "\(fault) is immediate")
        }
        #expect(!plan.hasFaults(phone))
    }

    @Test func lostMessagesAreNeverSentAndTheFaultDisarmsAfterItsCount() {
        var plan = FaultPlan<String>()
        let armed = plan.arm(.loseMessageNew(count: 2), on: phone)
        let sent = ["m1", "m2", "m3", "m4"].map { plan.messageNew($0, to: phone) }
        #expect(armed)
        #expect(sent == [[], [], ["m3"], ["m4"]])
        #expect(!plan.hasFaults(phone))
    }

    @Test func aLossCountOutsideItsRangeIsRefusedInJSON() {
        for json in [#"{"type":"loseMessageNew","count":0}"#, #"{"type":"loseMessageNew","count":10001}"#] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(SandboxFault.self, from: Data(json.utf8)) }
        }
    }

    @Test func aHeldBackSnapshotIsDelayedOrWithheldUntilTheFaultsAreCleared() {
        var plan = FaultPlan<String>()
        let phone: Device.ID = "PHONE"
        #expect(plan.snapshotHold(phone) == nil)
        _ = plan.arm(.delayPresenceSnapshot(.seconds(3)), on: phone)
        #expect(plan.snapshotHold(phone) == .delayed(.seconds(3)))
        _ = plan.arm(.delayPresenceSnapshot(nil), on: phone)
        #expect(plan.snapshotHold(phone) == .withheld)
        _ = plan.clear(phone)
        #expect(plan.snapshotHold(phone) == nil)
    }

    @Test func duplicateEventsNamesKnownPushedEventsInJSON() throws {
        let json = #"{"type":"duplicateEvents","types":["conversation.updated"]}"#
        #expect(try JSONDecoder().decode(SandboxFault.self, from: Data(json.utf8)) == .duplicateEvents(types: ["conversation.updated"], copies: 1))
        for json in [
            #"{"type":"duplicateEvents","types":[]}"#, #"{"type":"duplicateEvents","types":["message.ack"]}"#,
            #"{"type":"duplicateEvents","copies":1}"#, #"{"type":"duplicateEvents","types":["typing"],"copies":0}"#,
        ] {
            #expect(throws: DecodingError.self, "\(json)") { try JSONDecoder().decode(SandboxFault.self, from: Data(json.utf8)) }
        }
    }

    @Test func faultsHaveAStableJSONForm() throws {
        let faults: [SandboxFault] = [
            .dropSocket, .dropBeforeNextAck, .duplicateMessageNew(copies: 2), .loseMessageNew(count: 3), .reorderMessageNew,
            .duplicateEvents(types: ["message.updated", "friend.removed"], copies: 3),
            .delayAcks(.milliseconds(1500)), .close(code: 4008, reason: "30"), .expireToken, .revokeDevice,
            .delayPresenceSnapshot(.milliseconds(3000)), .delayPresenceSnapshot(nil),
        ]
        for fault in faults {
            let data = try JSONEncoder().encode(fault)
            #expect(try JSONDecoder().decode(SandboxFault.self, from: data) == fault)
        }
        let close = try JSONDecoder().decode(SandboxFault.self, from: Data(#"{"type":"close","code":4001,"reason":"bye"}"#.utf8))
        #expect(close == .close(code: 4001, reason: "bye"))
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SandboxFault.self, from: Data(#"{"type":"close","code":1006}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(SandboxFault.self, from: Data(#"{"type":"meteor"}"#.utf8))
        }
    }
}
