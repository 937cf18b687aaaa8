@testable import BotRuntime
import Foundation
import Testing

@Suite("logfmt formatting")
struct LogfmtFormatterTests {
    let formatter = LogfmtFormatter()
    let time = Date(timeIntervalSince1970: 1_792_677_791.482)  // 2026-10-22T14:03:11.482Z

    @Test func standardKeysComeFirstInOrderThenFieldsSortedByKey() {
        let record = LogRecord(
            time: time, level: .info, bot: "reminder", trace: "01J9ZK", message: "reply sent",
            fields: ["seq": "42", "conversation": "c_1"])
        #expect(formatter.format(record)
            == #"ts=2026-10-22T14:03:11.482Z level=info bot=reminder trace=01J9ZK msg="reply sent" conversation=c_1 seq=42"#)
    }

    @Test func botAndTraceAreLeftOutWhenNotSet() {
        let record = LogRecord(time: time, level: .warning, bot: nil, message: "starting")
        #expect(formatter.format(record) == "ts=2026-10-22T14:03:11.482Z level=warning msg=starting")
    }

    @Test func valuesWithSpacesQuotesEqualsOrBackslashesAreQuotedAndEscaped() {
        #expect(LogfmtFormatter.value("plain") == "plain")
        #expect(LogfmtFormatter.value("two words") == #""two words""#)
        #expect(LogfmtFormatter.value(#"say "hi""#) == #""say \"hi\"""#)
        #expect(LogfmtFormatter.value("a=b") == #""a=b""#)
        #expect(LogfmtFormatter.value(#"C:\dir"#) == #""C:\\dir""#)
        #expect(LogfmtFormatter.value("") == #""""#)
    }

    @Test func aRecordIsAlwaysOneLineWhateverItsText() {
        let record = LogRecord(
            time: time, level: .error, bot: "b", message: "line one\nline two\r\tend\u{2028}x\u{7}",
            fields: ["body": "a\nb"])
        let line = formatter.format(record)
        #expect(!line.contains("\n") && !line.contains("\r") && !line.contains("\u{2028}"))
        #expect(line.contains(#"msg="line one\nline two\r\tend\u{2028}x\u{7}""#))
        #expect(line.contains(#"body="a\nb""#))
    }

    @Test func keysAreSanitizedAndFieldsCannotImpersonateStandardKeys() {
        let record = LogRecord(
            time: time, level: .info, bot: "real", message: "m", fields: ["bot": "fake", "odd key=": "v"])
        let line = formatter.format(record)
        #expect(line.contains("bot=real"))
        #expect(line.contains("field.bot=fake"))
        #expect(line.contains("odd_key_=v"))
    }
}
