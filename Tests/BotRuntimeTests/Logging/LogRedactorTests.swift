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

    @Test func bearerCredentialsAreMaskedInAnyCaseAndPlainTextIsLeftAlone() {
        let redactor = LogRedactor()
        #expect(redactor.redact("auth BEARER abc.def") == "auth BEARER [REDACTED]")
        #expect(redactor.redact("beabearer xyz") == "beabearer xyz", "a word that only ends in bearer names no credential")
        #expect(redactor.redact("bebearer xyz and Bearer q1") == "bebearer xyz and Bearer [REDACTED]")
        #expect(redactor.redact("connected in 12 ms, bear with me") == "connected in 12 ms, bear with me")
    }

    @Test(arguments: [
        ("no marker here", false), ("a=b", true), (#"say "hi""#, true), ("BeArEr", true), ("bebearer", true),
        ("beare r", false), ("béarer", false), ("", false),
    ])
    func onlyTextWithAMarkerOfAPatternIsScanned(text: String, expected: Bool) {
        #expect(LogRedactor.mayHoldCredentials(text) == expected)
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

    @Test func anASCIISecretIsMaskedInItsPercentEncodedForm() {
        let redactor = LogRedactor()
        redactor.register("tok.en-1_2~3")
        #expect(redactor.redact("sent tok%2Een%2D1%5F2%7E3 and tok.en-1_2~3") == "sent [REDACTED] and [REDACTED]")
    }

    @Test func aSecretIsMaskedWhenAURLEncoderLeftItsUnreservedCharactersAlone() {
        let redactor = LogRedactor()
        redactor.register("sk-live_abc/def")
        #expect(redactor.redact("GET /v1?k=sk-live_abc%2Fdef&n=1") == "GET /v1?k=[REDACTED]&n=1")
    }

    @Test func aSecretIsMaskedWhenItsPercentEscapesUseLowercaseHex() {
        let redactor = LogRedactor()
        redactor.register("sk-live_abc/def")
        #expect(redactor.redact("k=sk%2dlive%5fabc%2fdef") == "k=[REDACTED]")
    }

    @Test func aSecretIsMaskedInJSONThatEscapesItsSlashes() {
        let redactor = LogRedactor()
        redactor.register("sk-live_abc/def")
        #expect(redactor.redact(#"{"apiKey":"sk-live_abc\/def"}"#) == #"{"apiKey":"[REDACTED]"}"#)
    }

    @Test func aSecretIsMaskedInJSONThatEscapesItsQuotesAndBackslashes() {
        let redactor = LogRedactor()
        redactor.register(#"pa"ss\word"#)
        #expect(redactor.redact(#"{"key":"pa\"ss\\word"}"#) == #"{"key":"[REDACTED]"}"#)
    }

    @Test func aSecretIsMaskedInAFormThatWritesItsSpacesAsPlus() {
        let redactor = LogRedactor()
        redactor.register("p@ss word/1")
        #expect(redactor.redact("user=a&pw=p%40ss+word%2F1") == "user=a&pw=[REDACTED]")
    }

    @Test func aSecretHoldingAPlusIsMaskedRawAndEscaped() {
        let redactor = LogRedactor()
        redactor.register("abc+def-1")
        #expect(redactor.redact("abc+def-1 and abc%2Bdef-1") == "[REDACTED] and [REDACTED]")
    }

    @Test func aNonASCIISecretIsMaskedWhenItsUTF8IsPercentEncodedInEitherNormalizationForm() {
        let redactor = LogRedactor()
        redactor.register("p\u{E4}sswort-7")
        #expect(redactor.redact("p=p%c3%a4sswort-7") == "p=[REDACTED]")
        #expect(redactor.redact("p=pa%CC%88sswort-7") == "p=[REDACTED]")
    }

    @Test func aSecretRightAfterAPercentSignIsMaskedAsItStands() {
        let redactor = LogRedactor()
        redactor.register("ab12cd-secret")
        #expect(redactor.redact("at 100%ab12cd-secret") == "at 100%[REDACTED]")
    }

    @Test func escapesThatSpellNoSecretAreLeftAsTheyAre() {
        let redactor = LogRedactor()
        redactor.register("sk-live_abc/def")
        #expect(redactor.redact(#"path=a%2Fb+c \/x 100%"#) == #"path=a%2Fb+c \/x 100%"#)
    }

    @Test func fieldsNamedLikeSecretsAreMaskedWhole() {
        let redactor = LogRedactor()
        let record = LogRecord(
            time: Date(), level: .info, bot: nil, message: "m",
            fields: ["password": "x", "refreshToken": "y", "clientSecret": "z", "seq": "3"])
        let redacted = redactor.redact(record)
        #expect(redacted.fields == ["password": "[REDACTED]", "refreshToken": "[REDACTED]", "clientSecret": "[REDACTED]", "seq": "3"])
    }

    @Test(arguments: ["PASSWORD", "x-Authorization", "tokenExpiry", "api_SECRET", "TO\u{212A}EN", "Ä-password"])
    func aKeyHoldingASecretWordInAnyCaseNamesASecret(key: String) {
        #expect(LogRedactor().isSecretKey(key))
    }

    @Test(arguments: ["", "seq", "tok", "passwor", "tokne", "sécret", "authorisation"])
    func aKeyWithoutAWholeSecretWordNamesNoSecret(key: String) {
        #expect(!LogRedactor().isSecretKey(key))
    }

    @Test func veryShortValuesAreNotRegisteredSoTheyCannotGarbleEveryLine() {
        let redactor = LogRedactor()
        redactor.register("ab")
        #expect(redactor.redact("abba") == "abba")
    }

    @Test func everyOneOfThousandsOfRegisteredPasswordsSharingAPrefixIsMasked() {
        let redactor = LogRedactor()
        for index in 0..<5_000 { redactor.register("password-\(index)") }
        #expect(redactor.redact("signing in with password-4321 failed") == "signing in with [REDACTED] failed")
        #expect(redactor.redact("url?p=password%2D17") == "url?p=[REDACTED]")
        #expect(redactor.redact("the password-field is empty") == "the password-field is empty")
    }

    @Test func everyOccurrenceOfASecretIsMasked() {
        let redactor = LogRedactor()
        redactor.register("s3cret-value")
        #expect(redactor.redact("s3cret-value, again s3cret-value") == "[REDACTED], again [REDACTED]")
    }

    @Test func aSecretContainingAnotherIsMaskedWhole() {
        let redactor = LogRedactor()
        redactor.register("hunter2")
        redactor.register("hunter2-longer")
        #expect(redactor.redact("a hunter2-longer b hunter2 c") == "a [REDACTED] b [REDACTED] c")
    }

    @Test func overlappingSecretsLeaveNothingOfEitherVisible() {
        let redactor = LogRedactor()
        redactor.register("abcdefgh")
        redactor.register("efghijkl")
        #expect(redactor.redact("xx abcdefghijkl yy") == "xx [REDACTED] yy")
    }

    @Test func aSecretWithNonASCIICharactersIsMaskedAndTheTextAroundItKept() {
        let redactor = LogRedactor()
        redactor.register("pässwört-ß")
        #expect(redactor.redact("é pässwört-ß ü") == "é [REDACTED] ü")
    }

    @Test func aSecretIsMaskedWhicheverUnicodeFormTheTextSpellsItIn() {
        let redactor = LogRedactor()
        redactor.register("p\u{E4}sswort-7")
        let decomposed = "signed in with pa\u{308}sswort-7 today"
        #expect(redactor.redact(decomposed) == "signed in with [REDACTED] today")
        #expect(redactor.redact("signed in with p\u{E4}sswort-7") == "signed in with [REDACTED]")
    }

    @Test func aSecretAtTheVeryEndOfTheTextIsMasked() {
        let redactor = LogRedactor()
        redactor.register("tail-secret")
        #expect(redactor.redact("ends with tail-secret") == "ends with [REDACTED]")
    }
}
