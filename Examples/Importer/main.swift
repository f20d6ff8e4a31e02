// BooksImporterExample: a script-style importer built on `BooksContext`.
//
//     BooksImporterExample [--socket PATH] [--prune] FILE
//
// FILE holds one book per line, `name<TAB>author` (blank lines and lines starting with # are
// skipped). Books whose name is already in the daemon's file get the author from FILE; new names
// are inserted; with --prune, books whose name is not in FILE are deleted. Everything is written
// in one all-or-nothing save; the new books' permanent ids are printed.
import BooksClient
import BooksCore
import BooksProtocol

#if canImport(Glibc)
import Glibc
#endif

/// Prints to standard error and exits with status 1.
func fail(_ message: String) -> Never {
    let bytes = Array("BooksImporterExample: \(message)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(1)
}

/// The command line: the socket, whether to prune, the input file.
struct Options {
    var socket: String?
    var prune = false
    var file = ""

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--socket":
                guard let path = rest.popFirst() else { fail("--socket needs a path") }
                socket = path
            case "--prune": prune = true
            default: file = argument
            }
        }
        if file.isEmpty { fail("usage: BooksImporterExample [--socket PATH] [--prune] FILE") }
    }
}

/// The rows of the input file as (name, author).
func readRows(_ path: String) -> [(name: String, author: String)] {
    guard let handle = fopen(path, "r") else { fail("cannot open \(path)") }
    defer { fclose(handle) }
    var rows: [(String, String)] = []
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    while getline(&line, &capacity, handle) > 0, let line {
        let text = String(String(cString: line).prefix { !$0.isNewline })
        if text.isEmpty || text.hasPrefix("#") { continue }
        let fields = text.split(separator: "\t", maxSplits: 1).map(String.init)
        guard fields.count == 2 else { fail("not `name<TAB>author`: \(text)") }
        rows.append((fields[0], fields[1]))
    }
    free(line)
    return rows
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let rows = readRows(options.file)
do {
    let socket = SocketPathResolver().resolve(explicit: options.socket).path  // --socket, $BOOKS_SOCKET, …
    let client = try await BooksClient.connect(socketPath: socket, clientName: "importer")
    let context = BooksContext(client)
    let existing = Dictionary(try await context.fetch().map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
    var temporary: [String: String] = [:]  // temporary id → name
    var updated = 0
    for (name, author) in rows {
        if let book = existing[name] {
            if book.author != author {
                try context.update(book.id, author: author)
                updated += 1
            }
        } else if !temporary.values.contains(name) {
            temporary[context.insert(name: name, author: author)] = name
        }
    }
    var deleted = 0
    if options.prune {
        let names = Set(rows.map(\.name))
        for book in existing.values where !names.contains(book.name) {
            try context.delete(book.id)
            deleted += 1
        }
    }
    let remap = try await context.save()
    for (temp, name) in temporary.sorted(by: { $0.value < $1.value }) {
        print("inserted \(remap[temp] ?? "?") \(name)")
    }
    print("imported: \(temporary.count) inserted, \(updated) updated, \(deleted) deleted")
} catch let error as BooksContextError {
    fail(error.description)
} catch {
    fail("\(error)")
}
