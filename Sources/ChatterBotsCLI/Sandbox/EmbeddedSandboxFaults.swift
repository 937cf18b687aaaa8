import BotRuntime
import ChatterBots
import ChatterSandbox

/// The console's fault buttons, carried out on the embedded sandbox: each `ConsoleFault` becomes the
/// `SandboxFault` it names, set off on the bot's connected devices (every connected device for a restart).
struct EmbeddedSandboxFaults: ConsoleFaultInjector {
    let sandbox: Sandbox

    /// The close code of a restarting server (RFC 6455: service restart).
    static let serviceRestart: UInt16 = 1012

    func inject(_ fault: ConsoleFault, intoBot userId: User.ID) async throws(ConsoleInputError) {
        let connected = await sandbox.admin.connectedDevices()
        let targets: [Device.ID]
        if fault == .restartServer {
            targets = Array(connected)
        } else {
            let devices: [SandboxDevice]
            do {
                devices = try await sandbox.service.devices(ofUsers: [userId])
            } catch {
                throw ConsoleInputError("the sandbox cannot list the bot's devices: \(error.message)")
            }
            targets = devices.map(\.id).filter(connected.contains)
        }
        guard !targets.isEmpty else {
            throw ConsoleInputError("the bot has no open connection to the sandbox now: wait until it is live")
        }
        for device in targets {
            do {
                switch fault {
                case .clearFaults: await sandbox.admin.clearFaults(of: device)
                default: try await sandbox.admin.inject(Self.sandboxFault(fault), into: device)
                }
            } catch {
                throw ConsoleInputError("the sandbox refused the fault: \(error.message)")
            }
        }
    }

    /// The sandbox's fault for `fault` (`clearFaults` is not one).
    static func sandboxFault(_ fault: ConsoleFault) -> SandboxFault {
        switch fault {
        case .dropSocket: .dropSocket
        case .loseMessageNew: .loseMessageNew(count: 1)
        case .duplicateEvent: .duplicateMessageNew(copies: 1)
        case .rateLimit: .close(code: 4008, reason: "5")
        case .restartServer, .clearFaults: .close(code: serviceRestart, reason: "service restart")
        }
    }
}
