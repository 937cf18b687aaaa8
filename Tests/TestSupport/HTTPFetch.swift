import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One plain HTTP request over loopback, for tests of the process's own HTTP endpoints.
package struct HTTPFetch {
    package var status: Int
    package var headers: [String: String]
    package var body: String

    package static func get(_ url: URL, method: String = "GET") async throws -> HTTPFetch {
        var request = URLRequest(url: url)
        request.httpMethod = method
        return try await send(request)
    }

    package static func send(_ request: URLRequest) async throws -> HTTPFetch {
        let (data, response) = try await URLSession.patient.data(for: request.patient)
        guard let http = response as? HTTPURLResponse else {
            throw ProcessTestError("\(request.url?.absoluteString ?? "") answered with no HTTP response")
        }
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return HTTPFetch(status: http.statusCode, headers: headers, body: String(decoding: data, as: UTF8.self))
    }
}
