import BooksTestSupport
import Glibc

/// How a hand edit reaches `books.txt` in the latency benchmark.
enum LiveEditKind: String, Sendable, CaseIterable {
    /// `open(O_APPEND)`, write one new row, `close()`: one insert.
    case append = "append"
    /// `open(O_TRUNC)`, write the whole file with one name changed, `close()`: one update.
    case rewrite = "in-place rewrite"
    /// Whole file to a temporary file, `rename()` over books.txt, one row deleted: one delete.
    case replace = "atomic replace"
    /// `sed -i` changing one row's name (timed from sed's exit): one update.
    case sed = "sed -i"
    /// One append right after a `sed -i` (the sed's change is awaited first, untimed): the next
    /// event on a file whose identity (inode) a rename has just changed.
    case appendAfterSed = "append after sed -i"
    /// Like `rewrite`, written in 4 KiB `write` calls (as sed and many editors write): the page
    /// cache then holds the file in 4 KiB pieces, which every later read of it pays for.
    case rewriteInPieces = "in-place rewrite in 4 KiB writes"
    /// One append right after `rewriteInPieces` (awaited first, untimed): same inode, small pieces.
    case appendAfterPieces = "append after a 4 KiB-write rewrite"

    /// The edit made (and awaited, untimed) before each timed one, if any.
    var preparation: LiveEditKind? {
        switch self {
        case .appendAfterSed: .sed
        case .appendAfterPieces: .rewriteInPieces
        default: nil
        }
    }

    var slug: String {
        switch self {
        case .append: "append"
        case .rewrite: "rewrite"
        case .replace: "replace"
        case .sed: "sed"
        case .appendAfterSed: "append-after-sed"
        case .rewriteInPieces: "rewrite-4k"
        case .appendAfterPieces: "append-after-rewrite-4k"
        }
    }
}

/// The change a subscriber must report for one edit.
struct ExpectedChange: Sendable, Equatable {
    var kind: String  // insert | update | delete
    var id: String
}

/// A generated `books.txt` kept in memory and edited on disk the way people and tools do.
struct LiveBookFile {
    let path: String
    private(set) var content: [UInt8]
    private(set) var rows: Int
    private var generator: BookFileGenerator
    private var counter = 0

    /// Writes a fresh file of `rows` generated rows at `path`.
    init(path: String, rows: Int) throws {
        self.path = path
        generator = BookFileGenerator()
        content = generator.file(rows: rows)
        self.rows = rows
        try FileBytes.write(content, to: path)
    }

    /// Takes the file at `path` as it is (for appends to a file another process wrote); new rows
    /// come from another stream than the generated files' (no id of theirs comes back).
    init(adopting path: String) throws {
        self.path = path
        generator = BookFileGenerator(seed: BookFileGenerator.seed ^ 0x5245_504C)
        content = try FileBytes.read(path)
        rows = content.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    /// Performs one edit; returns what a subscriber must report and the `CLOCK_MONOTONIC` time
    /// at which the editing call (close/rename/sed's exit) returned.
    ///
    /// `content` (this process's copy of the file) is updated before the editing call: updating it
    /// afterwards freed or moved a file-sized array between the call's return and the read of the
    /// subscriber's pipe, so a line that was already waiting was stamped late.
    mutating func perform(_ kind: LiveEditKind) -> (expected: ExpectedChange, at: UInt64) {
        counter += 1
        switch kind {
        case .append, .appendAfterSed, .appendAfterPieces:
            let row = generator.row()
            let id = String(decoding: row[..<36], as: UTF8.self)
            content += row
            rows += 1
            Self.write(row, to: path, flags: O_APPEND)
            return (ExpectedChange(kind: "insert", id: id), Stopwatch.now())
        case .rewrite:
            let id = replaceContent(renamed(row: pickRow(), to: "Rewritten \(counter) ✎"))
            Self.write(content, to: path, flags: O_TRUNC)
            return (ExpectedChange(kind: "update", id: id), Stopwatch.now())
        case .rewriteInPieces:
            let id = replaceContent(renamed(row: pickRow(), to: "Rewritten \(counter) ✍"))
            Self.write(content, to: path, flags: O_TRUNC, pieces: 4096)
            return (ExpectedChange(kind: "update", id: id), Stopwatch.now())
        case .replace:
            let (start, end) = RowEdit.line(pickRow(), in: content)
            let id = replaceContent(
                (
                    String(decoding: content[start..<(start + 36)], as: UTF8.self),
                    Array(content[..<start]) + content[end...]
                ))
            rows -= 1
            let temporary = path + ".bench-tmp"
            Self.write(content, to: temporary, flags: O_CREAT | O_TRUNC)
            precondition(rename(temporary, path) == 0, "rename")
            return (ExpectedChange(kind: "delete", id: id), Stopwatch.now())
        case .sed:
            let name = "Sed edit \(counter)"
            let id = replaceContent(renamed(row: pickRow(), to: name))
            let status = PeerRun.run(["sed", "-i", "s/^\(id)|[^|]*|/\(id)|\(name)|/", path]).status
            let at = Stopwatch.now()
            precondition(status == 0, "sed -i failed")
            return (ExpectedChange(kind: "update", id: id), at)
        }
    }

    /// Makes `edit.content` this process's copy of the file (the old copy is freed now, before
    /// any timing); returns `edit.id`.
    private mutating func replaceContent(_ edit: (id: String, content: [UInt8])) -> String {
        content = edit.content
        return edit.id
    }

    /// A row index spread over the file (never the same twice in a row).
    private func pickRow() -> Int { (counter &* 7919) % max(rows - 1, 1) }

    /// The id of row `k` and the content with that row's name replaced.
    private func renamed(row k: Int, to name: String) -> (String, [UInt8]) {
        let (start, end) = RowEdit.line(k, in: content)
        let line = content[start..<end]
        let first = line.firstIndex(of: UInt8(ascii: "|"))!
        let second = line[(first + 1)...].firstIndex(of: UInt8(ascii: "|"))!
        let id = String(decoding: content[start..<first], as: UTF8.self)
        return (id, Array(content[...first]) + Array(name.utf8) + content[second...])
    }

    /// Opens `path` for writing with `flags` (created 0644 with `O_CREAT`), writes `bytes` (in
    /// `write` calls of at most `pieces` bytes), closes.
    private static func write(_ bytes: [UInt8], to path: String, flags: Int32, pieces: Int = .max) {
        let fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0o644)
        precondition(fd >= 0, "open \(path)")
        writeAll(fd, bytes, pieces: pieces)
        close(fd)
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], pieces: Int) {
        bytes.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + done, min(buffer.count - done, pieces))
                if n < 0, errno == EINTR { continue }
                precondition(n > 0, "write failed")
                done += n
            }
        }
    }
}
