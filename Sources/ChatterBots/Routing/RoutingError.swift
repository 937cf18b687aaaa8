/// A mistake in how a bot uses the router (not in what a user typed). It propagates out of the handler,
/// so the runtime logs it and the message's work is discarded; the description says what to change.
public enum RoutingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A handler asked for an argument its command's usage does not declare.
    case undeclaredArgument(name: String, command: String, usage: String)
    /// A dialog was started that was never registered with `MessageRouter.dialog(_:)`, so its later
    /// answers could not reach it.
    case unregisteredDialog(String)
    /// A dialog step asked to go to a step the dialog does not have.
    case unknownDialogStep(dialog: String, step: String)

    public var description: String {
        switch self {
        case .undeclaredArgument(let name, let command, _) where command.isEmpty:
            "Only commands have arguments, and this route is not one (asked for <\(name)>): read a pattern's groups from message.captures."
        case .undeclaredArgument(let name, let command, let usage):
            "\(command) has no argument <\(name)>: its usage is “\(usage)”. Declare it in the usage or read another name."
        case .unregisteredDialog(let name):
            "The dialog “\(name)” is not registered: call router.dialog(_:) with it when building the router."
        case .unknownDialogStep(let dialog, let step):
            "The dialog “\(dialog)” has no step “\(step)”: declare it with step(_:ask:_:) or go to an existing one."
        }
    }
}
