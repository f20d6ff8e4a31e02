import BooksCore
import BooksProtocol
import FoundationEssentials

/// Parses `add -`'s input (pure): one book per line, `NAME<TAB>AUTHOR` or a JSON object
/// `{"name","author"}` (optionally `"id"`); blank lines are skipped, `\r\n` is accepted.
enum BookInputParser {
    /// A line that is not a book.
    struct Failure: Error, Equatable, CustomStringConvertible {
        /// 1-based.
        var line: Int
        var reason: String
        var description: String { "line \(line): \(reason)" }
    }

    private struct JSONBook: Decodable {
        var id: String?
        var name: String
        var author: String
    }

    /// The books of `text`, in order, or the first bad line.
    static func parse(_ text: String) -> Result<[BookDraft], Failure> {
        var drafts: [BookDraft] = []
        var number = 0
        // "\r\n" is one Character: split on both.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            if line.first(where: { $0 != " " }) == "{" {
                guard let book = try? JSONDecoder().decode(JSONBook.self, from: Data(line.utf8)) else {
                    return .failure(
                        Failure(line: number, reason: "not a JSON object with string \"name\" and \"author\""))
                }
                drafts.append(BookDraft(id: book.id, name: book.name, author: book.author))
                continue
            }
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count == 2 else {
                return .failure(
                    Failure(line: number, reason: "expected NAME<TAB>AUTHOR (2 fields), found \(fields.count)"))
            }
            drafts.append(BookDraft(name: String(fields[0]), author: String(fields[1])))
        }
        return .success(drafts)
    }
}
