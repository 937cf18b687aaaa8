import BotRuntime
import Foundation
import WebSocket

/// The quarantine's control routes of a running `run` process, called over loopback HTTP (see `ControlRoute`).
struct QuarantineControlClient: Sendable {
    /// Why a call gave no answer of the control routes.
    enum Failure: Error, Sendable {
        /// Nothing answered there, or something that is not the control routes (a process that died and left its
        /// control file; another program on the port).
        case unreachable(String)
        /// The process refused the request; `message` says why (an unknown bot or entry, a failing store).
        case refused(status: Int, message: String)
    }

    let origin: HTTPOrigin
    private let client: HTTPClient

    init(control: ControlFile) {
        origin = HTTPOrigin(isSecure: false, host: control.host, port: control.httpPort)
        client = HTTPClient(configuration: HTTPClientConfiguration(
            connectTimeout: .seconds(2), requestTimeout: .seconds(30), maxIdleConnectionsPerOrigin: 0))
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

    private func send<T: Decodable>(_ route: ControlRoute, expecting: T.Type) async throws(Failure) -> T {
        var request = HTTPRequest(method: route.request.method, target: route.request.target)
        if request.method == .post { request.headers.add(name: "Content-Length", value: "0") }
        let response: HTTPResponse
        do {
            response = try await client.send(request, to: origin)
        } catch {
            throw .unreachable(error.description)
        }
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
