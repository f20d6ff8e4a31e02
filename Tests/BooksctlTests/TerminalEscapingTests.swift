import BooksClient
import BooksCore
import BooksProtocol
import Testing

@testable import booksctl

/// Nothing a file or a daemon sends reaches the terminal as a control or bidi character.
@Suite struct TerminalEscapingTests {
    static let hostile = ["\u{1B}]0;pwned\u{07}", "\u{9B}31m", "evil\u{202E}txt", "a\u{2028}b", "\u{2066}x\u{2069}"]

    func isSafe(_ text: String) -> Bool { !text.unicodeScalars.contains(where: TextCell.needsEscape) }

    @Test(arguments: hostile)
    func escapeLeavesNoControlOrBidiCharacter(text: String) {
        let escaped = TextCell.escape(text)
        #expect(isSafe(escaped))
        #expect(escaped.contains("\\u{"))
        #expect(TextCell.escape("Dune — Frank Herbert, 日本語 🙂") == "Dune — Frank Herbert, 日本語 🙂")
    }

    @Test func statusEscapesBadLinesHeldIDsAndProblems() {
        let evil = Self.hostile.joined()
        let status = DaemonStatus(
            file: "/srv/books\u{1B}[2J.txt", format: "text", fileState: "unavailable", fileProblem: "oops \(evil)",
            bookCount: 1,
            badLines: [BadLine(lineNumber: 3, reason: .duplicateID(evil, firstLine: 1), text: "x|\(evil)|y")],
            heldBooks: [evil], watcherMode: "inotify", watcherWarning: evil, epoch: "E", seq: 1,
            oldestReplayableSeq: 0, subscribers: 0, clients: 1, uptimeSeconds: 5, lastChange: nil, server: "booksd")
        let text = StatusCommand.summary(status, style: Style(enabled: false))
        #expect(isSafe(text.replacingNewlines()))
        #expect(text.contains("held books"))
    }

    @Test func subscribeLinesEscapeC1AndBidiInNamesAndIDs() {
        let book = Book(id: "id\u{9B}1", name: "Name\u{202E}", author: "\u{85}Author")
        let update = MirrorUpdate(
            epoch: "E", seq: 1, source: .file, time: nil, origin: .live,
            changes: ChangeSet(inserted: [book]))
        let lines = ChangeLineFormatter(json: false, style: Style(enabled: false)).lines(for: update)
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy(isSafe))
    }

    @Test func daemonErrorMessagesAreEscaped() {
        let message = ErrorReporter.message(for: .daemon(ProtocolError(.notFound, "no book with id \u{1B}[31mX")))
        #expect(isSafe(message))
    }
}

extension String {
    /// The text with its line breaks removed (they separate the summary's lines on purpose).
    fileprivate func replacingNewlines() -> String { String(unicodeScalars.filter { $0 != "\n" }.map(Character.init)) }
}
