// The write paths the power-cut test records (docs/RELIABILITY.md, "Power cuts"): each scenario is a seed
// file and a list of client writes, with the books the file must hold after each of them.
import BooksCore
import BooksProtocol
import BooksTestSupport
import Glibc

@testable import BooksStore

/// One client write of a scenario.
enum PowerCutStep {
    case insert([Book])
    case update([BookPatch])
    case delete([String])
    /// A `save` changing and deleting books (no inserts: their ids are the daemon's, unknown here).
    case save(updated: [BookPatch], deleted: [String])

    /// Sends it; throws unless acknowledged.
    func run(on client: RequestClient) throws {
        let reply: Reply
        switch self {
        case .insert(let books): reply = try client.insert(books)
        case .update(let patches): reply = try client.update(patches)
        case .delete(let ids): reply = try client.delete(ids)
        case .save(let patches, let ids):
            reply = try client.request(
                Request(id: client.makeID(), op: .save, updated: patches, deleted: ids.map { BookDeletion(id: $0) }))
        }
        guard reply.ok else { throw TestSupportError("write refused: \(reply)") }
    }

    /// The books after it.
    func applied(to books: [String: Book]) -> [String: Book] {
        var books = books
        switch self {
        case .insert(let inserted): for book in inserted { books[book.id] = book }
        case .save(let patches, let ids):
            return PowerCutStep.delete(ids).applied(to: PowerCutStep.update(patches).applied(to: books))
        case .update(let patches):
            for patch in patches {
                guard var book = books[patch.id] else { continue }
                if let name = patch.name { book.name = name }
                if let author = patch.author { book.author = author }
                books[patch.id] = book
            }
        case .delete(let ids): for id in ids { books[id] = nil }
        }
        return books
    }
}

/// A recorded write path.
struct PowerCutScenario {
    /// The path, for the report (`full rewrite (update)`, …).
    var name: String
    /// How the daemon must have saved (`rewrite` or `append`, from its debug log `saved (…)`),
    /// or what its log must say (start-up scenarios).
    var savedAs: String
    /// The seed file's lines.
    var seed: [String]
    var steps: [PowerCutStep]
    /// Files planted in the book directory (its path) after the seed, before the daemon starts:
    /// what a crash left for start-up to repair.
    var plant: (@Sendable (String) throws -> Void)? = nil

    /// The books after 0, 1, … steps.
    var expectedStates: [[String: Book]] {
        var states = [BookFile.books(BookFile.render(seed))]
        for step in steps { states.append(step.applied(to: states.last!)) }
        return states
    }

    /// Seed rows whose rendering is exactly `size` bytes (to place an append across a block
    /// boundary).
    static func seed(bytes size: Int) -> [String] {
        var lines: [String] = []
        var total = 0
        var i = 0
        while total + 60 < size {
            let line = "s\(i)|Seed book number \(i) of the power cut test|Author \(i)"
            lines.append(line)
            total += line.utf8.count + 1
            i += 1
        }
        let prefix = "pad|"
        let padding = size - total - prefix.utf8.count - "|Pad".utf8.count - 1
        lines.append(prefix + String(repeating: "p", count: max(1, padding)) + "|Pad")
        return lines
    }

    static func book(_ id: String) -> Book { Book(id: id, name: "Power cut \(id)", author: "Writer \(id)") }

    /// A torn append (the first `torn` bytes of a row) with its intent record, as a power cut
    /// before the fix of finding 6 could not leave it but a kill during the append can.
    @Sendable static func plantTornAppend(_ directory: String) throws {
        let path = directory + "/books.txt"
        let original = TestFiles.readBytes(path) ?? []
        let payload = Array("torn|Torn row|Never acknowledged\n".utf8)
        try TestFiles.append(Array(payload.prefix(12)), to: path)
        var s = stat()
        guard stat(path, &s) == 0 else { throw TestSupportError("stat \(path)") }
        let record = AppendIntentRecord(
            device: UInt64(s.st_dev), inode: UInt64(s.st_ino), originalSize: original.count, payload: payload)
        try TestFiles.write(record.encoded, to: AppendWriter.intentPath(for: path), mode: 0o600)
    }

    /// A temporary file a killed rewrite left, holding another version.
    @Sendable static func plantLeftover(_ directory: String) throws {
        try TestFiles.write(
            BookFile.render(["left|Leftover version|Killed writer"]), to: directory + "/.books.txt.booksd-L3ft0v",
            mode: 0o644)
    }

    /// Every write path (docs/RELIABILITY.md, "Power cuts").
    static let all: [PowerCutScenario] = [
        PowerCutScenario(
            name: "full rewrite (update)", savedAs: "rewrite", seed: seed(bytes: 600),
            steps: [.update([BookPatch(id: "s1", name: "Renamed")])]),
        PowerCutScenario(
            name: "full rewrite (delete)", savedAs: "rewrite", seed: seed(bytes: 600), steps: [.delete(["s2"])]),
        PowerCutScenario(
            name: "full rewrite (2-book update batch)", savedAs: "rewrite", seed: seed(bytes: 600),
            steps: [.update([BookPatch(id: "s0", name: "Batch A"), BookPatch(id: "s3", name: "Batch B")])]),
        PowerCutScenario(
            name: "full rewrite (save: update + delete)", savedAs: "rewrite", seed: seed(bytes: 600),
            steps: [.save(updated: [BookPatch(id: "s0", name: "Saved")], deleted: ["s3"])]),
        PowerCutScenario(
            name: "append + intent record (1 row in a block)", savedAs: "append", seed: seed(bytes: 600),
            steps: [.insert([book("n1")])]),
        PowerCutScenario(
            name: "append + intent record (1 row across a block boundary)", savedAs: "append",
            seed: seed(bytes: 4096 - 20), steps: [.insert([book("n1")])]),
        PowerCutScenario(
            name: "append + intent record (3-row batch across a block boundary)", savedAs: "append",
            seed: seed(bytes: 4096 - 60), steps: [.insert([book("n1"), book("n2"), book("n3")])]),
        PowerCutScenario(
            name: "sequence (insert, update, insert)", savedAs: "append", seed: seed(bytes: 4096 - 100),
            steps: [
                .insert([book("n1")]), .update([BookPatch(id: "n1", name: "Changed")]), .insert([book("n2")]),
            ]),
        PowerCutScenario(
            name: "start-up repair of a torn append (intent record)", savedAs: "cut off 12 bytes",
            seed: seed(bytes: 600), steps: [], plant: plantTornAppend),
        PowerCutScenario(
            name: "start-up keeping a leftover temporary file", savedAs: "kept in", seed: seed(bytes: 600),
            steps: [], plant: plantLeftover),
    ]
}
