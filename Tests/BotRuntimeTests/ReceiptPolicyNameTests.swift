import BotRuntime
import Testing

/// `ReceiptPolicy` moved to ChatterBots; code that names it through BotRuntime, importing only BotRuntime, still
/// compiles.
@Suite struct ReceiptPolicyNameTests {
    @Test func botRuntimeStillNamesTheReceiptPolicy() {
        let policy: BotRuntime.ReceiptPolicy = ReceiptPolicy(sendsDelivered: false, sendsRead: true)
        #expect(policy.sendsRead && !policy.sendsDelivered)
    }
}
