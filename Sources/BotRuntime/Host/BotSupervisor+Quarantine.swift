extension BotSupervisor {
    /// The quarantined work of every bot (or of the bot named `bot`), in configuration order, oldest first.
    package func quarantine(bot: String? = nil) async throws(QuarantineControlError) -> [BotQuarantineEntry] {
        let bots = await namedBots()
        let chosen = bots.filter { bot == nil || $0.name == bot }
        if let bot, chosen.isEmpty { throw .unknownBot(bot, known: bots.map(\.name)) }
        var result: [BotQuarantineEntry] = []
        for (name, member) in chosen {
            guard let holder = member as? any QuarantineHolder else { continue }
            do {
                result += try await holder.quarantineEntries().map { BotQuarantineEntry(bot: name, entry: $0) }
            } catch {
                throw QuarantineControlError(error, bot: name)
            }
        }
        return result
    }

    /// Hands the entry to its handler again: now when its bot runs, else at the bot's next start.
    package func retryQuarantined(
        _ reference: QuarantineReference
    ) async throws(QuarantineControlError) -> QuarantineRetryOutcome {
        let holder = try await quarantineHolder(of: reference)
        let retry: (entry: QuarantineEntry, runsNow: Bool)?
        do {
            retry = try await holder.retryQuarantined(reference.id)
        } catch {
            throw QuarantineControlError(error, bot: reference.bot)
        }
        guard let retry else { throw .unknownEntry(reference) }
        return QuarantineRetryOutcome(
            entry: BotQuarantineEntry(bot: reference.bot, entry: retry.entry), runs: retry.runsNow ? .now : .nextStart)
    }

    /// Forgets the entry.
    package func dropQuarantined(_ reference: QuarantineReference) async throws(QuarantineControlError) {
        let holder = try await quarantineHolder(of: reference)
        let dropped: Bool
        do {
            dropped = try await holder.dropQuarantined(reference.id)
        } catch {
            throw QuarantineControlError(error, bot: reference.bot)
        }
        guard dropped else { throw .unknownEntry(reference) }
    }

    private func quarantineHolder(of reference: QuarantineReference) async throws(QuarantineControlError) -> any QuarantineHolder {
        let bots = await namedBots()
        guard let member = bots.first(where: { $0.name == reference.bot })?.bot else {
            throw .unknownBot(reference.bot, known: bots.map(\.name))
        }
        guard let holder = member as? any QuarantineHolder else { throw .unknownEntry(reference) }
        return holder
    }
}
