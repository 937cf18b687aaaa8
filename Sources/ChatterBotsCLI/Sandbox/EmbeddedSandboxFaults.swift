import BotRuntime
import ChatterBots
import ChatterSandbox

/// The console's fault buttons, carried out on the embedded sandbox: each `ConsoleFault` becomes the
/// `SandboxFault` it names, set off on the bot's connected devices, except the server restart, which restarts the
/// sandbox itself.
struct EmbeddedSandboxFaults: ConsoleFaultInjector {
    let sandbox: Sandbox

    /// How long a console restart keeps the sandbox down: long enough to watch the bots back off and return.
    static let restartDowntime: Duration = .seconds(3)

    func inject(_ fault: ConsoleFault, into userId: User.ID?) async throws(ConsoleInputError) {
        if fault == .restartServer {
            do {
                try await sandbox.restart(downtime: Self.restartDowntime)
            } catch {
                // A restart under way is a state to wait out; a sandbox shut down or unable to listen is unavailable.
                throw ConsoleInputError(error.description, isUnavailable: error != .alreadyRestarting)
            }
            return
        }
        guard let userId else { throw ConsoleInputError("name the bot or sandbox user to set off \(fault.rawValue) on") }
        let devices: [SandboxDevice]
        do {
            devices = try await sandbox.service.devices(ofUsers: [userId])
        } catch {
            throw ConsoleInputError("the sandbox cannot list the devices of that user: \(error.message)")
        }
        let connected = await sandbox.admin.connectedDevices()
        let targets = devices.map(\.id).filter(connected.contains)
        guard !targets.isEmpty else {
            throw ConsoleInputError("that user has no open connection to the sandbox now: wait until it is live")
        }
        for device in targets {
            do {
                if let sandboxFault = Self.sandboxFault(fault) {
                    try await sandbox.admin.inject(sandboxFault, into: device)
                } else {
                    await sandbox.admin.clearFaults(of: device)
                }
            } catch {
                throw ConsoleInputError("the sandbox refused the fault: \(error.message)")
            }
        }
    }

    /// The sandbox's fault for `fault`; nil for `clearFaults` and `restartServer`, which are not faults of a device.
    static func sandboxFault(_ fault: ConsoleFault) -> SandboxFault? {
        switch fault {
        case .dropSocket: .dropSocket
        case .loseMessageNew: .loseMessageNew(count: 1)
        case .duplicateEvent: .duplicateMessageNew(copies: 1)
        case .rateLimit: .close(code: 4008, reason: "5")
        case .restartServer, .clearFaults: nil
        }
    }
}
