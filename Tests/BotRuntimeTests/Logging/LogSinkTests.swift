@testable import BotRuntime
import ChatterBots
import Foundation
import Testing
import BotRuntimeTestSupport

@Suite("log sink")
struct LogSinkTests {
    @Test func recordsBelowTheLevelAreDroppedAndOthersWrittenAsLogfmt() {
        let lines = CapturedLines()
        let sink = LogSink(minimumLevel: .info, output: lines)
        sink.log(.debug, "not shown")
        sink.log(.warning, "shown", bot: "echo", trace: "t1", ["k": "v"])
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.hasSuffix("level=warning bot=echo trace=t1 msg=shown k=v") == true)
    }

    @Test func aSecretRegisteredOnOneCopyIsMaskedByEveryCopy() {
        let lines = CapturedLines()
        let sink = LogSink(minimumLevel: .info, output: lines)
        let copy = sink
        copy.registerSecret("at_0123456789")
        sink.log(.info, "connecting to ws://h/ws?clientKey=ck&token=at_0123456789")
        sink.log(.info, "token at_0123456789 refreshed")
        #expect(!lines.text.contains("at_0123456789"))
        #expect(lines.lines(containing: "token [REDACTED] refreshed").count == 1)
    }

    @Test func aBotLoggerWritesIntoTheSinkWithItsBotNameAndTrace() {
        let lines = CapturedLines()
        let sink = LogSink(minimumLevel: .info, output: lines)
        let logger = sink.botLogger(bot: "reminder").with(["trace": "m_42"])
        logger.debug("hidden")
        logger.notice("reminder set", ["due": "18:30"])
        #expect(lines.all.count == 1)
        #expect(lines.all.first?.contains(#"level=notice bot=reminder trace=m_42 msg="reminder set" due=18:30"#) == true)
    }

    @Test func aClosureSinkReceivesRecordsAlreadyRedacted() {
        let received = CapturedLines()
        let sink = LogSink(minimumLevel: .trace) { record in received.write(line: record.message) }
        sink.registerSecret("correct-horse")
        sink.log(.trace, "password correct-horse")
        #expect(received.all == ["password [REDACTED]"])
    }

    @Test func theFileOutputWritesEveryLineInOrderToItsDescriptor() async throws {
        let pipe = Pipe()
        let output = FileDescriptorLogOutput(fileDescriptor: pipe.fileHandleForWriting.fileDescriptor, label: "test")
        for index in 0..<100 { output.write(line: "line \(index)") }
        await output.flush()
        try pipe.fileHandleForWriting.close()
        let data = try pipe.fileHandleForReading.readToEnd() ?? Data()
        let text = String(decoding: data, as: UTF8.self)
        #expect(text == (0..<100).map { "line \($0)\n" }.joined())
    }
}
