import Foundation

/// Why a bot's store could not be exported or imported (``StoreTransfer``). Nothing was marked, replaced or left
/// half-written: the source store and the data directory are as they were.
package enum StoreTransferError: Error, CustomStringConvertible {
    /// The data directory holds no store of `bot`.
    case noStore(bot: String, path: String)
    /// Something exists at the export's destination already.
    case fileExists(String)
    /// The file to import does not exist.
    case noFile(String)
    /// The file to import is not a bot's store: `reason` says what is missing.
    case notABotStore(path: String, reason: String)
    /// The file to import was written by a newer version (`unknownMigrations`).
    case newerSchema(path: String, unknownMigrations: [String])
    /// The file to import does not say which bot it holds, and no name was given.
    case noBotName(path: String)
    /// `name` cannot name a bot (it names the store's file).
    case invalidBotName(String)
    /// The data directory has a store of `bot` that was not moved away: importing would replace its device.
    case storeExists(bot: String, path: String)
    /// The store could not be opened, read or marked: in use by a running bot, moved already, or a storage failure.
    case store(BotStoreError)
    /// A file operation failed.
    case file(operation: String, path: String, errno: Int32)

    package var description: String {
        switch self {
        case .noStore(let bot, let path):
            "There is no store of bot \(bot) at \(path): check the bot's name and the data directory (--config or --data)."
        case .fileExists(let path):
            "\(path) exists already: choose another file, or remove it first. Nothing was exported."
        case .noFile(let path):
            "There is no file at \(path): give the path of a file written by export."
        case .notABotStore(let path, let reason):
            "\(path) is not a bot's store (\(reason)): give a file written by export. Nothing was imported."
        case .newerSchema(let path, let unknown):
            "\(path) was written by a newer version (unknown migrations: \(unknown.joined(separator: ", "))): "
                + "import it with that version or a later one. Nothing was imported."
        case .noBotName(let path):
            "\(path) does not say which bot it holds: give the bot's name with --as BOT. Nothing was imported."
        case .invalidBotName(let name):
            "\"\(name)\" cannot name a bot: use 1 to 64 letters, digits, '.', '_' or '-', not starting with '.'."
        case .storeExists(let bot, let path):
            "Bot \(bot) has a store here already (\(path)) that was not moved away: importing would replace its "
                + "device. Export that one first, or, if it must go, stop the bot and delete it (its device is lost). "
                + "Nothing was imported."
        case .store(let error):
            "\(error)"
        case .file(let operation, let path, let code):
            "Could not \(operation) \(path): \(String(cString: strerror(code)))."
        }
    }
}
