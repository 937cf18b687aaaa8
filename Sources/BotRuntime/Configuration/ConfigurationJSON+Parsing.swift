import ChatterBots
import Foundation

extension ConfigurationJSON {
    /// Reads `data` as JSON, or says where the syntax is broken, which key is given twice, where a trailing comma is
    /// or which number is out of range (`StrictJSONScanner`).
    static func parse(_ data: Data) throws(ConfigurationError) -> ConfigurationJSON {
        if let issues = StrictJSONScanner.issues(in: data), !issues.isEmpty { throw ConfigurationError(issues: issues) }
        do {
            return try JSONDecoder().decode(ConfigurationJSON.self, from: data)
        } catch let DecodingError.dataCorrupted(context) {
            let detail = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            throw ConfigurationError(issues: [ConfigurationIssue(
                field: "", message: "is not valid JSON" + (detail.map { ": \($0)" } ?? ""))])
        } catch {
            throw ConfigurationError(issues: [ConfigurationIssue(field: "", message: "is not valid JSON: \(error)")])
        }
    }
}
