import ChatterBots
import Foundation

extension ConfigurationJSON {
    /// Reads `data` as JSON, or says where the syntax is broken.
    static func parse(_ data: Data) throws(ConfigurationError) -> ConfigurationJSON {
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
