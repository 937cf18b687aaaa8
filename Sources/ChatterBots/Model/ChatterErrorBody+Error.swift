/// An error body is also a Swift error, so code that produces API errors (the sandbox's service, a bot's
/// validation) can throw it typed (`throws(ChatterErrorBody)`) and hand it to the wire unchanged.
extension ChatterErrorBody: Error {}
