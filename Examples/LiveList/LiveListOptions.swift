import BooksClient

/// The command line of `LiveList`.
struct LiveListOptions {
    static let usage = "usage: LiveList [--socket PATH] [--author NAME] [--sort name|author] [--limit N] [--frames N]"

    /// A bad command line.
    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    /// The daemon's socket (nil: the default `booksctl` uses).
    var socket: String?
    /// The query: every book, or one author's, sorted by name or author, at most `limit`.
    var query = BookQuery(sort: BookSort(.name))
    /// Exit after this many frames showing books, not counting those drawn while loading (nil:
    /// run until interrupted).
    var frames: Int?

    init(_ arguments: [String]) throws(Invalid) {
        var rest = arguments[...]
        func value(_ option: String) throws(Invalid) -> String {
            guard let value = rest.popFirst() else { throw Invalid(description: "\(option) needs a value") }
            return value
        }
        func number(_ option: String) throws(Invalid) -> Int {
            let text = try value(option)
            guard let n = Int(text), n > 0 else {
                throw Invalid(description: "\(option): not a positive number: \(text)")
            }
            return n
        }
        while let option = rest.popFirst() {
            switch option {
            case "--socket": socket = try value(option)
            case "--author": query.filter = BookFilter([BookCondition(.author, .equals, try value(option))])
            case "--sort":
                switch try value(option) {
                case "name": query.sort = BookSort(.name)
                case "author": query.sort = BookSort(.author)
                case let other: throw Invalid(description: "--sort: name or author, not \(other)")
                }
            case "--limit": query.limit = try number(option)
            case "--frames": frames = try number(option)
            default: throw Invalid(description: "unknown option \(option)")
            }
        }
    }
}
