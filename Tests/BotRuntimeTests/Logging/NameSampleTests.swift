@testable import BotRuntime
import Testing

@Suite("name sample")
struct NameSampleTests {
    @Test func aFewNamesAreAllShown() {
        #expect(NameSample(["a", "b", "c"]).joined() == "a, b, c")
        #expect(NameSample(["a", "b"]).joined(separator: ",") == "a,b")
    }

    @Test func namesPastTheLimitAreCountedNotShown() {
        let names = (1...10_000).map { "bot\($0)" }
        let text = NameSample(names).joined()
        #expect(text == (1...20).map { "bot\($0)" }.joined(separator: ", ") + " and 9980 more")
    }

    @Test func exactlyTheLimitIsShownWhole() {
        let names = (1...20).map { "bot\($0)" }
        #expect(NameSample(names).joined() == names.joined(separator: ", "))
    }
}
