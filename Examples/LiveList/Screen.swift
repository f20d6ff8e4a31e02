import BooksClient

#if canImport(Glibc)
import Glibc
#endif

/// Draws one frame of the list: on a terminal it clears the screen first; otherwise (a pipe, a
/// test) it writes the frames one after another, each ending with a blank line.
struct Screen {
    /// Whether standard output is a terminal.
    let interactive: Bool

    func draw(_ books: [Book], total: Int, state: LiveConnectionState, loaded: Bool) {
        var lines: [String] = []
        let count = loaded ? "\(total) book\(total == 1 ? "" : "s")" : "loading"
        lines.append("── books · \(count) · \(state) ──")
        let width = books.map { $0.name.count }.max() ?? 0
        for book in books {
            let name = book.name.replacingNewlines()
            let padding = String(repeating: " ", count: max(0, width - name.count))
            lines.append(name + padding + "  " + book.author.replacingNewlines())
        }
        let text = (interactive ? "\u{1B}[H\u{1B}[2J" : "") + lines.joined(separator: "\n") + "\n\n"
        Self.write(text, to: STDOUT_FILENO)
    }

    /// Writes all of `text` to `fd` (retrying short writes).
    static func write(_ text: String, to fd: Int32) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }
            bytes = bytes.dropFirst(n)
        }
    }
}

extension String {
    /// The text on one line: newlines and tabs shown as `␤` and `␉`.
    fileprivate func replacingNewlines() -> String {
        String(map { $0 == "\n" || $0 == "\r\n" ? "␤" : $0 == "\t" ? "␉" : $0 })
    }
}
