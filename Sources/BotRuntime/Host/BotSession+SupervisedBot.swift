/// `BotSession` is what the supervisor runs in production.
extension BotSession: SupervisedBot {}

extension BotSession: StateReportingBot {}
