import Testing
@testable import WebSocket

/// Which close codes may travel on the wire, and how codes and keys read.
@Suite struct CloseCodeTests {
    @Test(arguments: [UInt16(1000), 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 3999, 4000, 4999])
    func registeredAndApplicationCodesAreSendable(code: UInt16) {
        #expect(WebSocketCloseCode(code).isSendable)
    }

    @Test(arguments: [UInt16(0), 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000, 65535])
    func reservedAndLocalOnlyCodesAreNotSendable(code: UInt16) {
        #expect(!WebSocketCloseCode(code).isSendable)
    }

    @Test func descriptionNamesKnownCodes() {
        #expect(WebSocketCloseCode.messageTooBig.description == "1009 (message too big)")
        #expect(WebSocketCloseCode(4001).description == "4001")
    }

    @Test func maskingKeyReadsItsBytesInWireOrder() {
        let key = WebSocketMaskingKey([0x37, 0xFA, 0x21, 0x3D])
        #expect(key == WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D))
        #expect(key?.rawValue == 0x37FA_213D)
        #expect(key?.bytes == [0x37, 0xFA, 0x21, 0x3D])
        #expect(WebSocketMaskingKey([1, 2, 3]) == nil)
    }

    @Test func closeInfoIsCleanOnlyAfterAReceivedCloseWithoutError() {
        #expect(WebSocketCloseInfo(code: .normalClosure, initiator: .peer).isClean)
        #expect(!WebSocketCloseInfo(code: .abnormalClosure, initiator: .transport).isClean)
        #expect(!WebSocketCloseInfo(code: .protocolError, initiator: .local, error: .maskRequired).isClean)
    }
}
