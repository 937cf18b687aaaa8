import BotRuntime
import Foundation
import WebSocket

/// The control routes of a running `run` process (the quarantine's, and the reload), called over HTTP (see
/// `ControlRoute`).
struct ControlClient: Sendable {
    /// Why a call gave no answer of the control routes.
    enum Failure: Error, Sendable {
        /// Nothing answered there, or something that is not the control routes (a process that died and left its
        /// control file; another program on the port).
        case unreachable(String)
        /// The process refused the request; `message` says why (an unknown bot or entry, a failing store).
        case refused(status: Int, message: String)
        /// The process took the request but has not answered within `after`: it may still be carrying it out.
        case timedOut(after: Duration)
    }

    let origin: HTTPOrigin
    private let client: HTTPClient
    /// The control token sent with each request, when the environment has one.
    private let token: String?
    /// The shutdown timeout the process runs with, which bounds how long a reload waits for each bot it stops.
    private let shutdownTimeout: Duration

    /// How long a request but the reload may take.
    static let requestTimeout: Duration = .seconds(30)

    init(control: ControlFile, token: String?) {
        self.token = token
        origin = HTTPOrigin(isSecure: false, host: control.host, port: control.httpPort)
        shutdownTimeout = control.shutdownTimeout ?? BotCommand.RunOptions.defaultShutdownTimeout
        client = HTTPClient(configuration: HTTPClientConfiguration(
            connectTimeout: .seconds(2), requestTimeout: Self.requestTimeout, maxIdleConnectionsPerOrigin: 0))
    }

    /// How long a reload may take to answer: it may wait for one queued before it, and each stops its bots within
    /// the process's shutdown timeout plus the supervisor's grace; reading the file and making accounts get the
    /// time of any other request.
    static func reloadTimeout(shutdownTimeout: Duration) -> Duration {
        (shutdownTimeout + BotSupervisor.stopGrace) * 2 + requestTimeout
    }

    func list(bot: String?) async throws(Failure) -> [BotQuarantineEntry] {
        try await send(.list(bot: bot), expecting: QuarantineJSON.Listing.self).entries
    }

    func retry(_ reference: QuarantineReference) async throws(Failure) -> QuarantineRetryOutcome {
        try await send(.retry(reference), expecting: QuarantineRetryOutcome.self)
    }

    func drop(_ reference: QuarantineReference) async throws(Failure) {
        _ = try await send(.drop(reference), expecting: QuarantineJSON.Dropped.self)
    }

    /// Asks the process to read its configuration again: its report, applied or refused with the errors.
    func reload() async throws(Failure) -> ReloadReport {
        let response = try await response(to: .reload, timeout: Self.reloadTimeout(shutdownTimeout: shutdownTimeout))
        let isJSON = response.headers.first(name: "Content-Type") == "application/json"
        if [200, 422].contains(response.status.code), isJSON, let report = QuarantineJSON.decode(ReloadReport.self, from: response.body) {
            return report
        }
        if isJSON, let failure = QuarantineJSON.decode(QuarantineJSON.Failure.self, from: response.body) {
            throw .refused(status: response.status.code, message: failure.error)
        }
        throw .unreachable("it answered \(response.status.code) without the control routes' JSON")
    }

    private func response(to route: ControlRoute, timeout: Duration = requestTimeout) async throws(Failure) -> HTTPResponse {
        var request = HTTPRequest(method: route.request.method, target: route.request.target)
        if request.method == .post { request.headers.add(name: "Content-Length", value: "0") }
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        do {
            return try await client.send(request, to: origin, timeout: timeout)
        } catch .timedOut(.response) {
            throw .timedOut(after: timeout)
        } catch {
            throw .unreachable(error.description)
        }
    }

    private func send<T: Decodable>(_ route: ControlRoute, expecting: T.Type) async throws(Failure) -> T {
        let response = try await response(to: route)
        let isJSON = response.headers.first(name: "Content-Type") == "application/json"
        if response.status.code == 200, isJSON, let value = QuarantineJSON.decode(T.self, from: response.body) {
            return value
        }
        if isJSON, let failure = QuarantineJSON.decode(QuarantineJSON.Failure.self, from: response.body) {
            throw .refused(status: response.status.code, message: failure.error)
        }
        throw .unreachable("it answered \(response.status.code) without the control routes' JSON")
    }
}
