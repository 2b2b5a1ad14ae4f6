import EfferentCore
import EfferentHTTP
import Foundation

/// A refusal of the dashboard's, as a sentence: JSON (`{"error": …}`) for the API, a small page
/// for a browser asking for a page, each with its status.
public struct DashboardRefusal: HTTPResponseError, Equatable, CustomStringConvertible {
    public let status: Int
    public let message: String
    public let page: Bool
    public var headers: [(String, String)]

    public init(_ status: Int, _ message: String, page: Bool = false, headers: [(String, String)] = []) {
        self.status = status
        self.message = message
        self.page = page
        self.headers = headers
    }

    public var description: String { "\(status) \(message)" }

    public var response: HTTPResponse {
        guard page else { return HTTPError.render(status: status, message: message, headers: headers) }
        let html = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Efferent dashboard</title>"
            + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"></head>"
            + "<body><h1>Efferent dashboard</h1><p id=\"refusal\">\(Self.escape(message.prefix(1).uppercased() + message.dropFirst())).</p></body></html>\n"
        return HTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")] + headers, body: Array(html.utf8))
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    public static func == (a: DashboardRefusal, b: DashboardRefusal) -> Bool { a.status == b.status && a.message == b.message }
}
