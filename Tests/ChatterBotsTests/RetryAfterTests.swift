import Foundation
import Testing

@testable import ChatterBots

@Suite("Retry-After and 4008 delays")
struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test(arguments: [("30", 30.0), (" 12.5\n", 12.5), ("0", 0), ("1e3", 1000), ("1.5E+1", 15)] as [(String, Double)])
    func secondsAreANonNegativeDecimalNumber(text: String, seconds: Double) {
        #expect(RetryAfter.seconds(in: text) == .seconds(seconds))
    }

    @Test(arguments: ["", " ", "-1", "+5", ".5", "5.", "1e", "inf", "nan", "0x10", "30s", "3 0", "١٢"])
    func anythingElseIsUnreadable(text: String) {
        #expect(RetryAfter.seconds(in: text) == nil)
        #expect(RetryAfter.delay(inHeader: text, now: Self.now) == nil)
    }

    @Test func hugeWaitsAreCutToTheLongest() {
        #expect(RetryAfter.seconds(in: "1e300") == RetryAfter.longest)
        #expect(RetryAfter.delay(inHeader: "Fri, 31 Dec 9999 23:59:59 GMT", now: Self.now) == RetryAfter.longest)
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:50:07 GMT",  // IMF-fixdate
        "Sunday, 06-Nov-94 08:50:07 GMT",  // obsolete RFC 850
        "Sun Nov  6 08:50:07 1994",  // obsolete asctime
    ])
    func anHTTPDateWaitsUntilThatInstant(header: String) {
        #expect(RetryAfter.delay(inHeader: header, now: Self.now) == .seconds(30))
    }

    @Test func aDateAlreadyPastWaitsNothing() {
        #expect(RetryAfter.delay(inHeader: "Sat, 05 Nov 1994 08:49:37 GMT", now: Self.now) == .zero)
    }

    @Test func theHeaderTakesSecondsToo() {
        #expect(RetryAfter.delay(inHeader: "7", now: Self.now) == .seconds(7))
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 31 Nov 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun 06 Nov 1994 08:49:37 GMT", "Sun, 06 nov 1994 08:49:37 GMT",
        "Sunday, 06-Nov-1994 08:49:37 GMT", "Sun Nov  6 08:49 1994", "06 Nov 1994 08:49:37",
    ])
    func malformedDatesAreUnreadable(header: String) {
        #expect(RetryAfter.delay(inHeader: header, now: Self.now) == nil)
    }

    @Test func aTwoDigitYearIsTheOneWithinFiftyYearsOfNow() {
        // In 1994, "44" is 2044 (50 years ahead) and "45" is 1945 (2045 would be more than 50 years ahead).
        let in2044 = ISO8601Timestamp.daysFromCivil(year: 2044, month: 11, day: 6) * 86_400 + 31_777 - 784_111_777
        #expect(RetryAfter.delay(inHeader: "Sunday, 06-Nov-44 08:49:37 GMT", now: Self.now) == .seconds(in2044))
        #expect(RetryAfter.delay(inHeader: "Monday, 06-Nov-45 08:49:37 GMT", now: Self.now) == .zero, "1945 is past")
    }
}

@Suite("Error codes: transient or permanent")
struct ErrorTransienceTests {
    @Test func onlyRateLimitedAndInternalAreTransientCodes() {
        #expect(ChatterErrorCode.documented.filter(\.isTransient) == [.rateLimited, .internalError])
        #expect(!ChatterErrorCode(rawValue: "ACCOUNT_FROZEN").isTransient, "an unknown code is a permanent refusal")
    }

    @Test(arguments: [(451, false), (400, false), (409, false), (429, true), (500, true), (503, true)] as [(Int, Bool)])
    func anUnknownCodeIsPermanentUnlessTheStatusMeansLater(status: Int, transient: Bool) {
        let error = ChatterAPIError(code: "ACCOUNT_FROZEN", message: "Frozen.", httpStatus: status)
        #expect(error.isTransient == transient)
    }

    @Test func anUnknownCodeInAnErrorFrameIsPermanent() {
        #expect(!ChatterAPIError(ChatterErrorBody(code: "ACCOUNT_FROZEN", message: "Frozen.")).isTransient)
    }

    @Test func aDocumentedCodeDecidesWhateverTheStatus() {
        #expect(!ChatterAPIError(code: .notFriends, message: "", httpStatus: 503).isTransient)
        #expect(ChatterAPIError(code: .rateLimited, message: "").isTransient)
    }
}
