import BooksTestSupport
import Foundation

/// The feed tests' JSON view of the shared raw `LineClient` (for protocol abuse).
extension LineClient {
    /// Sends hello and returns its reply object.
    func helloReply() throws -> [String: Any] {
        guard let line = hello(client: "feed-test"),
            let reply = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
        else { throw TestSupportError("no hello reply") }
        return reply
    }

    /// The next line as a JSON object, or nil at end of stream / timeout / not an object.
    func readJSON(timeout: Double = 5) -> [String: Any]? {
        guard let line = readLine(timeout: timeout) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// The error code of a raw reply object.
func feedErrorCode(_ reply: [String: Any]?) -> String? {
    (reply?["error"] as? [String: Any])?["code"] as? String
}
