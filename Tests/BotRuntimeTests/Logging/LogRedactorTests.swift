@testable import BotRuntime
import ChatterBots
import Foundation
import Testing

@Suite("log redaction")
struct LogRedactorTests {
    @Test func theTokenInAWebSocketURLIsMaskedAndTheRestOfTheURLKept() {
        let redactor = LogRedactor()
        let text = "connecting to wss://api.chatter.example/v1/ws?clientKey=ck_live&token=eyJhbGciOi.abc-123_x"
        #expect(redactor.redact(text) == "connecting to wss://api.chatter.example/v1/ws?clientKey=ck_live&token=[REDACTED]")
    }

    @Test func tokenParametersAreMaskedWhereverTheyAppearInAQuery() {
        let redactor = LogRedactor()
        #expect(redactor.redact("GET /ws?token=abc&clientKey=ck") == "GET /ws?token=[REDACTED]&clientKey=ck")
        #expect(redactor.redact("refresh_token=r1 access_token=a1") == "refresh_token=[REDACTED] access_token=[REDACTED]")
        #expect(redactor.redact("pushtoken=x") == "pushtoken=x")
    }

    @Test func secretJSONPropertiesAndBearerCredentialsAreMasked() {
        let redactor = LogRedactor()
        let json = #"{"accessToken":"at_1","refreshToken": "rt_\"2","deviceId":"d_1"}"#
        #expect(redactor.redact(json) == #"{"accessToken":"[REDACTED]","refreshToken": "[REDACTED]","deviceId":"d_1"}"#)
        #expect(redactor.redact("Authorization: Bearer abc.def") == "Authorization: Bearer [REDACTED]")
    }

    @Test func aRegisteredPasswordIsMaskedInMessagesAndFields() {
        let redactor = LogRedactor()
        redactor.register("hunter2-secret")
        let record = LogRecord(
            time: Date(), level: .error, bot: "b", message: "login failed for hunter2-secret!",
            fields: ["detail": "body was {password: hunter2-secret}"])
        let redacted = redactor.redact(record)
        #expect(redacted.message == "login failed for [REDACTED]!")
        #expect(redacted.fields["detail"] == "body was {password: [REDACTED]}")
    }

    @Test func aRegisteredSecretIsMaskedInItsPercentEncodedForm() {
        let redactor = LogRedactor()
        redactor.register("p@ss word/1")
        #expect(redactor.redact("url?x=p%40ss%20word%2F1") == "url?x=[REDACTED]")
    }

    @Test func fieldsNamedLikeSecretsAreMaskedWhole() {
        let redactor = LogRedactor()
        let record = LogRecord(
            time: Date(), level: .info, bot: nil, message: "m",
            fields: ["password": "x", "refreshToken": "y", "clientSecret": "z", "seq": "3"])
        let redacted = redactor.redact(record)
        #expect(redacted.fields == ["password": "[REDACTED]", "refreshToken": "[REDACTED]", "clientSecret": "[REDACTED]", "seq": "3"])
    }

    @Test func veryShortValuesAreNotRegisteredSoTheyCannotGarbleEveryLine() {
        let redactor = LogRedactor()
        redactor.register("ab")
        #expect(redactor.redact("abba") == "abba")
    }
}
