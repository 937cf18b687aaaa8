import BotRuntime
import ChatterBots
import Foundation
import WebSocket

/// The terminal client for a person: signs in (as one device across runs, see `ChatDeviceFile`), lists the
/// conversations, connects the realtime socket, and shows messages, typing, receipts and presence as they come,
/// while the person's lines are read as commands or sent to the open conversation.
///
/// All decisions are `ChatScreen`'s; this type only does the I/O. The realtime connection reconnects with the
/// seed's backoff (`ReconnectPolicy`), refreshes an expired token (4001), signs in again after a revoked device
/// (4003), and waits out a rate limit (4008); messages typed meanwhile are kept and sent, with their original
/// `clientMessageId`, once it is back.
public struct ChatClient: Sendable {
    public var configuration: ChatClientConfiguration

    public init(configuration: ChatClientConfiguration) {
        self.configuration = configuration
    }

    /// Runs until the person types `/quit` or `input` ends.
    ///
    /// - Parameters:
    ///   - input: the person's lines (`StandardInputReader.lines()` in a terminal).
    ///   - display: shows lines, in order; called from one task at a time.
    /// - Throws: `ChatClientError` when signing in fails or the server rules out going on (client key refused,
    ///   device revoked and signing in again refused).
    public func run(input: AsyncStream<String>, display: @escaping @Sendable ([ScreenLine]) -> Void) async throws(ChatClientError) {
        let rest = ChatterRESTClient(configuration: configuration.server)
        let deviceFile = configuration.dataDirectory.map { ChatDeviceFile(dataDirectory: $0, username: configuration.username) }
        let (session, warnings) = try await signIn(rest: rest, deviceFile: deviceFile, forgettingDevice: false)
        display(warnings.map { ScreenLine($0, tone: .status) })

        let (events, eventSink) = AsyncStream<ChatShell.Event>.makeStream()
        let (outbound, outboundSink) = AsyncStream<ChatShell.Outbound>.makeStream()
        var shell = ChatShell(
            screen: ChatScreen(historyLimit: configuration.historyLimit, timeZone: configuration.timeZone),
            rest: rest, events: eventSink, outbound: outboundSink, display: display)
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
        // One sender, so messages go out in the order they were typed.
        let senderTask = Task {
            for await item in outbound {
                do throws(RealtimeError) {
                    let ack = try await item.connection.sendMessage(item.message)
                    eventSink.yield(.input(.acknowledged(ack)))
                } catch {
                    switch error {
                    case .api(let refusal):
                        eventSink.yield(.input(.sendFailed(item.message.clientMessageId, reason: refusal.description)))
                    case .unencodableRequest(_, let description):
                        eventSink.yield(.input(.sendFailed(item.message.clientMessageId, reason: description)))
                    default:
                        break  // still pending: resent with the same clientMessageId after the reconnect
                    }
                }
            }
        }
        let connectionTask = Task { await maintainConnection(rest: rest, deviceFile: deviceFile, events: eventSink) }

        var failure: ChatClientError?
        for await event in events {
            switch event {
            case .input(let input):
                shell.apply(input)
            case .opened(let connection):
                shell.connection = connection
                shell.flushReceipts()
                shell.apply(.connected)
            case .closed:
                shell.connection = nil
            case .stopped(let error):
                failure = error
            }
            if failure != nil || shell.screen.hasEnded { break }
        }
        connectionTask.cancel()
        inputTask.cancel()
        outboundSink.finish()
        senderTask.cancel()
        if let connection = shell.connection { await connection.close() }
        await connectionTask.value
        eventSink.finish()
        if let failure { throw failure }
    }

    // MARK: Signing in

    /// A password sign-in as the device of the device file (a new device when there is none, or when
    /// `forgettingDevice`), storing the device id it gets. Returns the session and what went wrong with the file.
    func signIn(
        rest: ChatterRESTClient, deviceFile: ChatDeviceFile?, forgettingDevice: Bool
    ) async throws(ChatClientError) -> (AuthSession, [String]) {
        var warnings: [String] = []
        var storedDevice: Device.ID?
        if let deviceFile, !forgettingDevice {
            switch await Self.offThePool({ Result { () throws(ChatDeviceFileError) in try deviceFile.load() } }) {
            case .success(let id): storedDevice = id
            case .failure(let error): warnings.append(error.description)
            }
        }
        let session: AuthSession
        do {
            session = try await rest.login(
                username: configuration.username, password: configuration.password, deviceId: storedDevice,
                device: configuration.device)
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

    // MARK: The realtime connection

    /// Connects, forwards events, and reconnects as the close code says (refused credentials as
    /// `ChatCredentialRetries` says), until cancelled or told to stop.
    func maintainConnection(rest: ChatterRESTClient, deviceFile: ChatDeviceFile?, events: AsyncStream<ChatShell.Event>.Continuation) async {
        var policy = configuration.reconnectPolicy
        var random = SystemRandomNumberGenerator()
        let clock = configuration.connectionOptions.clock
        var credentials = ChatCredentialRetries()
        while !Task.isCancelled {
            let accessToken = await rest.tokenStore.tokens?.accessToken ?? ""
            let reason: String
            let reaction: CloseCodeReaction
            do throws(RealtimeError) {
                let connection = try await ChatterRealtimeConnection.connect(
                    configuration: configuration.server, accessToken: accessToken, options: configuration.connectionOptions)
                policy.reset()
                credentials.ready()
                events.yield(.opened(connection))
                // The bots' heartbeat: no pong in time drops the connection (not closed: a close handshake with a
                // peer that stopped answering waits out its timeout), and the loop reconnects.
                let heartbeat = HeartbeatDriver(
                    pongTimeout: HeartbeatMonitor.defaultPongTimeout, clock: clock,
                    log: SessionLog(sink: .discarding, bot: "chat", clock: clock))
                await ConnectionScope.run(connection, heartbeat: heartbeat) { connection.abort() } opened: { tasks in
                    tasks.startReading {
                        for await event in connection.events {
                            if case .frame(let frame) = event { events.yield(.input(.server(frame.event))) }
                        }
                    }
                }
                if Task.isCancelled {
                    await connection.close()
                    return
                }
                let closeReason = await connection.closeReason
                events.yield(.closed)
                reason = closeReason.description
                reaction = Self.reaction(to: closeReason)
            } catch {
                if case .cancelled = error { return }
                if Task.isCancelled { return }
                reason = error.description
                reaction = error.closeReason.map(Self.reaction(to:)) ?? .reconnectWithBackoff
            }

            let delay: Duration
            switch reaction {
            case .reconnectWithBackoff:
                delay = policy.nextDelay(using: &random)
            case .reconnectAfter(let rateLimit):
                delay = rateLimit.delay
            case .refreshTokenThenReconnect:
                let wait = credentials.unauthorizedWaitsForBackoff() ? policy.nextDelay(using: &random) : .zero
                if (try? await rest.refreshTokens(replacing: accessToken)) != nil {
                    delay = wait
                } else {
                    do {
                        _ = try await signIn(rest: rest, deviceFile: deviceFile, forgettingDevice: false)
                        delay = wait
                    } catch {
                        switch error {
                        case .serverUnreachable: delay = wait == .zero ? policy.nextDelay(using: &random) : wait
                        default:
                            events.yield(.stopped(error))
                            return
                        }
                    }
                }
            case .clearSessionAndSignInAfresh:
                guard credentials.revokedMaySignInAfresh() else {
                    events.yield(.stopped(.sessionRevoked(description: "the new session was revoked again before it was ready")))
                    return
                }
                do {
                    _ = try await signIn(rest: rest, deviceFile: deviceFile, forgettingDevice: true)
                    delay = .zero
                } catch {
                    events.yield(.stopped(.sessionRevoked(description: error.description)))
                    return
                }
            case .stop:
                events.yield(.stopped(.clientKeyRejected))
                return
            }
            events.yield(.input(.disconnected(reason: reason, retryIn: delay)))
            do {
                try await clock.sleep(for: delay)
            } catch {
                return
            }
        }
    }

    /// The runtime's reaction to a close (design.md point 8), from the connection's reading of the close code.
    static func reaction(to reason: RealtimeCloseReason) -> CloseCodeReaction {
        if case .rateLimited(let seconds) = reason {
            return .reconnectAfter(seconds.map { RateLimitDelay(delay: .seconds($0)) } ?? RateLimitDelay(serverValue: ""))
        }
        return CloseCodeReaction(code: reason.code, reason: "")
    }
}
