import BotRuntime
import ChatterBots
import Foundation
import Testing
@testable import ExampleBotKinds

/// Auto-responder options from `bots.json`: the documented example reads as meant, and every mistake fails at
/// start-up with an error naming the option at fault.
@Suite("AutoResponderOptions")
struct AutoResponderOptionsTests {
    func error(_ json: String) throws -> BotOptionsError? {
        try optionsError(json) { (options) throws(BotOptionsError) in try AutoResponderBot(options: options) }
    }

    @Test func theDocumentedExampleReadsAsMeant() throws {
        let bot = try AutoResponderBot(options: botOptions(#"""
            {
              "rules": [
                {"keywords": ["hello", "good morning"], "reply": "Hi {name}!"},
                {"pattern": "order\\s*#?(\\d+)", "reply": "Looking up order {1}.", "cooldownSeconds": 60}
              ],
              "cooldownSeconds": 300,
              "cooldownScope": "rule",
              "quietHours": {"from": "22:00", "to": "07:00", "timeZone": "Europe/Lisbon", "reply": "I'm asleep, {name}."},
              "away": {"message": "I'm away until Monday.", "until": "2026-12-07T09:00:00+01:00"},
              "unknownName": "there"
            }
            """#))
        let options = bot.options
        #expect(options.rules.map(\.id) == ["rule-1", "rule-2"])
        #expect(options.rules.map(\.cooldown) == [nil, .seconds(60)])
        #expect(options.cooldown == .seconds(300))
        #expect(options.cooldownScope == .rule)
        #expect(options.quietHours?.from == (try TimeOfDay(hour: 22, minute: 0)))
        #expect(options.quietHours?.timeZone.identifier == "Europe/Lisbon")
        #expect(options.quietHours?.reply?.source == "I'm asleep, {name}.")
        #expect(options.away?.until == Chat.instant("2026-12-07T08:00:00Z"))
        #expect(options.away?.from == nil)
        #expect(options.unknownName == "there")
    }

    @Test func defaultsApplyWhenOnlyRulesAreGiven() throws {
        let options = try AutoResponderBot(options: botOptions(#"{"rules": [{"keywords": ["hi"], "reply": "hey"}]}"#)).options
        #expect(options.cooldown == .seconds(300))
        #expect(options.cooldownScope == .rule)
        #expect(options.quietHours == nil)
        #expect(options.away == nil)
        #expect(options.unknownName == "there")
    }

    @Test func theKindIsNamedAsInBotsJSONAndBuiltFromAConfiguration() throws {
        #expect(AutoResponderBot.kind == "auto-responder")
        let configuration = BotConfiguration(
            name: "helpdesk", kind: AutoResponderBot.kind, credentials: BotCredentials(username: "helpdesk_bot", password: "x"),
            friendRequests: .nobody, options: try botOptions(#"{"away": {"message": "Back soon."}}"#))
        #expect(try AutoResponderBot(configuration: configuration).options.away?.message.source == "Back soon.")
    }

    @Test(arguments: [
        (#"{"rules": [{"keywords": ["hi"], "reply": "x"}], "quietHour": {}}"#, "quietHour", "is not an option here"),
        (#"{"rules": [{"keywords": ["hi"], "replies": "x"}]}"#, "rules[0].replies", "is not an option here"),
        (#"{"rules": [{"keywords": ["hi"]}]}"#, "rules[0].reply", "is required"),
        (#"{"rules": [{"reply": "x"}]}"#, "rules[0].keywords", "needs \"keywords\""),
        (#"{"rules": [{"keywords": ["hi"], "pattern": "hi", "reply": "x"}]}"#, "rules[0].pattern", "not both"),
        (#"{"rules": [{"keywords": [], "reply": "x"}]}"#, "rules[0].keywords", "at least one"),
        (#"{"rules": [{"keywords": ["!!"], "reply": "x"}]}"#, "rules[0].keywords", "no letters or digits"),
        (#"{"rules": [{"keywords": "hi", "reply": "x"}]}"#, "rules[0].keywords", "must be a list"),
        (#"{"rules": [{"keywords": ["hi"], "reply": "x"}, {"pattern": "([a-z", "reply": "x"}]}"#, "rules[1].pattern", "not a valid regular expression"),
        (#"{"rules": [{"pattern": "order (\\d+)", "reply": "order {2}"}]}"#, "rules[0].reply", "{2} has no value here"),
        (#"{"rules": [{"keywords": ["hi"], "reply": "Hi {nmae}"}]}"#, "rules[0].reply", "unknown placeholder {nmae}"),
        (#"{"rules": [{"keywords": ["hi"], "reply": "Hi {name"}]}"#, "rules[0].reply", "without its }"),
        (#"{"rules": [{"keywords": ["hi"], "reply": "x", "cooldownSeconds": -5}]}"#, "rules[0].cooldownSeconds", "0 or more"),
        (#"{"rules": [{"id": "a", "keywords": ["hi"], "reply": "x"}, {"id": "a", "keywords": ["yo"], "reply": "y"}]}"#, "rules[1].id", "earlier rule"),
        (#"{"rules": [{"keywords": ["hi"], "reply": "x"}], "cooldownScope": "user"}"#, "cooldownScope", "\"rule\" or \"global\""),
        (#"{"rules": []}"#, "rules", "nothing to answer"),
        (#"{}"#, "rules", "nothing to answer"),
        (#"{"away": {"message": "x"}, "quietHours": {"from": "22:00", "to": "22:00", "timeZone": "UTC"}}"#, "quietHours.to", "no quiet hours"),
        (#"{"away": {"message": "x"}, "quietHours": {"from": "10pm", "to": "07:00", "timeZone": "UTC"}}"#, "quietHours.from", "\"HH:MM\""),
        (#"{"away": {"message": "x"}, "quietHours": {"from": "22:00", "to": "07:00", "timeZone": "Lisbon"}}"#, "quietHours.timeZone", "unknown time zone"),
        (#"{"away": {"message": "x"}, "quietHours": {"from": "22:00", "to": "07:00"}}"#, "quietHours.timeZone", "is required"),
        (#"{"away": {"message": "x", "until": "monday"}}"#, "away.until", "ISO 8601"),
        (#"{"away": {"message": "x", "from": "2026-12-07T00:00:00Z", "until": "2026-12-01T00:00:00Z"}}"#, "away.until", "later than"),
        (#"{"away": {"message": "Bye {0}"}}"#, "away.message", "{0} has no value here"),
    ])
    func aMistakeNamesTheOptionAtFault(json: String, option: String, message: String) throws {
        let error = try #require(try error(json))
        #expect(error.kind == "auto-responder")
        #expect(error.option == option)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.description.hasPrefix("auto-responder options.\(option): "))
    }
}
