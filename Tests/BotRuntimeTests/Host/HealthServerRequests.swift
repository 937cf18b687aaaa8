@testable import BotRuntime
import Foundation
import TestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request to `server` over loopback, with the control token as a Bearer header when given, and `headers`.
func fetch(
    _ server: HealthServer, _ path: String, method: String = "GET", token: String? = nil, headers: [String: String] = [:]
) async throws -> HTTPFetch {
    var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(server.port)\(path)")))
    request.httpMethod = method
    if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
    for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
    return try await HTTPFetch.send(request)
}

/// Shuts the supervisor down, waits for its run to end, and stops serving.
func stopServing(_ supervisor: BotSupervisor, _ server: HealthServer, _ run: Task<SupervisorOutcome, Never>) async throws {
    await supervisor.shutdown(deadline: .seconds(1))
    _ = try await value(of: run, within: .hangGuard, "the supervisor's run to end")
    await server.shutdown()
}
