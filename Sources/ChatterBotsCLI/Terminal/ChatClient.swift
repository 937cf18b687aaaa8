import BotRuntime
import ChatterBots
import Foundation
import WebSocket

/// The terminal client for a person: signs in (as one device across runs, see `ChatDeviceFile`), lists the
/// conversations, connects the realtime socket, and shows messages, typing, receipts and presence as they come,
/// while the person's lines are read as commands or sent to the open conversation.
///
/// All decisions are `ChatScreen`'s; this type only does the I/O. The realtime connection is kept up by
/// `ChatConnectionKeeper` with the bots' lifecycle and heartbeat: it reconnects with the seed's backoff, refreshes
/// an expired token (4001), stops on a refused client key (4002), stops and forgets the device when the server
/// revokes its session (4003: signed out elsewhere, as the service's apps go back to their welcome screen), and
/// waits out a rate limit (4008); messages typed meanwhile are kept and sent, with their original
/// `clientMessageId`, once it is back.
public struct ChatClient: Sendable {
    public var configuration: ChatClientConfiguration

    public init(configuration: ChatClientConfiguration) {
        self.configuration = configuration
    }

    /// Runs until the person types `/quit` or `input` ends; at the end of `input`, messages still pending are given
    /// `ChatScreen.acknowledgementWait` to be acknowledged.
    ///
    /// - Parameters:
    ///   - input: the person's lines (`StandardInputReader.lines()` in a terminal).
    ///   - typing: whether the person's text field holds something, at each change (a page's field; a terminal,
    ///     which reads whole lines, has none): `typing.start` and its repeats, `typing.stop` when cleared.
    ///   - display: shows lines, in order; called from one task at a time.
    /// - Throws: `ChatClientError` when signing in fails or the server rules out going on (client key refused,
    ///   the device signed out by the server: `.signedOut`), or `.messagesNotAcknowledged` when the input ended
    ///   with messages that may not have been sent.
    public func run(
        input: AsyncStream<String>, typing: AsyncStream<Bool>? = nil, display: @escaping @Sendable ([ScreenLine]) -> Void
    ) async throws(ChatClientError) {
        // A refresh refused while the socket stays open: the connection keeper signs in again, as after a 4001.
        let (refusals, refusalSink) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let rest = ChatterRESTClient(
            configuration: configuration.server,
            tokenStore: ChatterTokenStore(tokens: nil, onChange: { _ in }, onRefreshRefused: { refusalSink.yield() }),
            requestTimeouts: configuration.restRequestTimeouts)
        let deviceFile = configuration.dataDirectory.map { ChatDeviceFile(dataDirectory: $0, username: configuration.username) }
        let (session, warnings) = try await signIn(rest: rest, deviceFile: deviceFile, forgettingDevice: false)
        display(warnings.map { ScreenLine($0, tone: .status) })

        let (events, eventSink) = AsyncStream<ChatShell.Event>.makeStream()
        let (outbound, outboundSink) = AsyncStream<ChatShell.Outbound>.makeStream()
        let cancelledSends = CancelledSends()
        var shell = ChatShell(
            screen: ChatScreen(historyLimit: configuration.historyLimit, timeZone: configuration.timeZone),
            rest: rest, inboundMessageLimit: configuration.connectionOptions.webSocket.limits.maxMessageSize, events: eventSink,
            outbound: outboundSink, cancelledSends: cancelledSends, display: display, clock: configuration.connectionOptions.clock)
        shell.apply(.signedIn(session.user))
        do {
            shell.apply(.directoryLoaded(try await ChatShell.loadDirectory(rest)))
        } catch {
            shell.apply(.requestFailed("Could not load your conversations (\(error)); trying again once connected."))
        }

        let inputTask = Task {
            for await line in input { eventSink.yield(.input(.line(line))) }
            eventSink.yield(.input(.endOfInput))
        }
        let clock = configuration.connectionOptions.clock
        let typingTask = typing.map { typing in
            Task {
                for await isTyping in typing { eventSink.yield(.input(.personTyping(isTyping, at: clock.now))) }
            }
        }
        // One sender, so messages go out in the order they were typed: a message refused for now holds back the ones
        // after it while it waits to go again.
        let senderTask = Task {
            for await item in outbound {
                var failures = 0
                // A message the person cancelled is not sent, nor sent again after its wait.
                while !cancelledSends.contains(item.message.clientMessageId) {
                    do throws(RealtimeError) {
                        // The ack reaches the screen through the connection's events, in the order it was read:
                        // an answer read right after it must not show above the message it answers.
                        _ = try await item.connection.sendMessage(item.message)
                    } catch {
                        switch error {
                        case .api(let refusal) where refusal.code.isTransient:
                            // The same clientMessageId again, after the bots' outbox backoff (or the wait asked).
                            failures += 1
                            let delay = OutboxStateMachine.retry(after: refusal.body, failures: failures).delay
                            eventSink.yield(.input(.sendRetrying(item.message.clientMessageId, reason: refusal.description, after: delay)))
                            do { try await clock.sleep(for: delay) } catch { break }
                            guard item.connection.isOpen else { break }  // resent after the reconnect
                            continue
                        case .api(let refusal):
                            eventSink.yield(.input(.sendFailed(item.message.clientMessageId, reason: refusal.description)))
                        case .unencodableRequest(_, let description):
                            eventSink.yield(.input(.sendFailed(item.message.clientMessageId, reason: description)))
                        default:
                            break  // still pending: resent with the same clientMessageId after the reconnect
                        }
                    }
                    break
                }
            }
        }
        let keeper = ChatConnectionKeeper(
            configuration: configuration, rest: rest,
            signIn: { forgettingDevice in _ = try await signInAsDevice(rest: rest, deviceFile: deviceFile, forgettingDevice: forgettingDevice) },
            events: eventSink)
        let connectionTask = Task { await keeper.run() }
        let refusalTask = Task {
            for await _ in refusals { keeper.refreshRefused() }
        }

        var failure: ChatClientError?
        // The connection task reports a close on its own, so it can overtake the `.opened` of the same connection.
        var lastClosed: UInt64 = 0
        for await event in events {
            switch event {
            case .input(let input):
                shell.apply(input)
            case .opened(let connection, let generation):
                guard generation > lastClosed else { break }
                shell.connection = connection
                shell.generation = generation
                shell.flushReceipts()
                shell.apply(.connected)
            case .caughtUp(let generation, let input):
                if generation == shell.generation { shell.apply(input) }
            case .catchUpEnded(let generation, let error):
                keeper.catchUpEnded(generation: generation, failure: error)
                if generation == shell.generation { shell.apply(.catchUpEnded(failure: error.map { "\($0)" })) }
            case .closed(let generation):
                lastClosed = max(lastClosed, generation)
                guard shell.generation == nil || shell.generation == generation else { break }
                shell.connection = nil
                shell.generation = nil
            case .stopped(let error):
                failure = error
            }
            if failure != nil || shell.screen.hasEnded { break }
        }
        connectionTask.cancel()
        refusalTask.cancel()
        inputTask.cancel()
        typingTask?.cancel()
        outboundSink.finish()
        senderTask.cancel()
        if let connection = shell.connection { await connection.close() }
        await connectionTask.value
        eventSink.finish()
        if case .signedOut? = failure, let deviceFile {
            do {
                try deviceFile.remove()
            } catch {
                display([ScreenLine("\(error)", tone: .error)])
            }
        }
        if let failure { throw failure }
        let unacknowledged = shell.screen.unacknowledgedAtEnd
        if unacknowledged > 0 { throw .messagesNotAcknowledged(count: unacknowledged) }
    }

    // MARK: Signing in

    /// A password sign-in as the device of the device file (a new device when there is none, or when
    /// `forgettingDevice`), storing the device id it gets. Returns the session and what went wrong with the file.
    func signIn(
        rest: ChatterRESTClient, deviceFile: ChatDeviceFile?, forgettingDevice: Bool
    ) async throws(ChatClientError) -> (AuthSession, [String]) {
        do {
            return try await signInAsDevice(rest: rest, deviceFile: deviceFile, forgettingDevice: forgettingDevice)
        } catch let error as ChatterAPIError {
            switch error.code {
            case .invalidCredentials: throw .invalidCredentials(username: configuration.username)
            case .invalidClientKey: throw .clientKeyRejected
            default: throw .signInFailed(description: error.description)
            }
        } catch let error as ChatterClientError {
            if case .transport(_, let description) = error {
                throw .serverUnreachable(apiURL: configuration.server.apiBaseURL.absoluteString, description: description)
            }
            throw .signInFailed(description: error.description)
        } catch {
            throw .signInFailed(description: String(describing: error))
        }
    }

    /// `signIn(rest:deviceFile:forgettingDevice:)` with the REST client's errors as they are, for the lifecycle
    /// to read (`SignInFailure`).
    func signInAsDevice(
        rest: ChatterRESTClient, deviceFile: ChatDeviceFile?, forgettingDevice: Bool
    ) async throws -> (AuthSession, [String]) {
        var warnings: [String] = []
        var storedDevice: Device.ID?
        if let deviceFile, !forgettingDevice {
            switch await Self.offThePool({ Result { () throws(ChatDeviceFileError) in try deviceFile.load() } }) {
            case .success(let id): storedDevice = id
            case .failure(let error): warnings.append(error.description)
            }
        }
        let session = try await rest.login(
            username: configuration.username, password: configuration.password, deviceId: storedDevice,
            device: configuration.device)
        if let deviceFile, session.deviceId != storedDevice {
            let username = session.user.username
            if case .failure(let error) = await Self.offThePool({
                Result { () throws(ChatDeviceFileError) in try deviceFile.save(session.deviceId, username: username) }
            }) {
                warnings.append(error.description)
            }
        }
        return (session, warnings)
    }

    /// Runs a small blocking file operation on a dispatch queue, so the cooperative pool never waits on the disk.
    static func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await DedicatedThread.run(named: "chatterbots.chat-file", work)
    }
}
