import BooksClient
import BooksCore
import BooksProtocol
import FoundationEssentials

/// `booksctl conflicts [--json]` and `booksctl resolve ID --take mine|theirs`: the kept conflicts
/// of merged saves, and settling one.
struct ConflictsCommand: Equatable {
    var json = false

    static func run(json: Bool, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        let conflicts = try await client.conflicts()
        if json {
            for conflict in conflicts { context.out.line(jsonLine(conflict, store: context.store)) }
            return .success
        }
        if conflicts.isEmpty {
            if context.out.isTerminal { context.out.line("no unsettled conflicts") }
            return .success
        }
        let width = context.out.isTerminal ? TableLayout.terminalWidth() : nil
        for line in table(conflicts, style: context.style, width: width) { context.out.line(line) }
        return .success
    }

    static func resolve(
        _ argument: String, take side: ConflictSide, json: Bool, _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        let conflicts = try await client.conflicts()
        let chosen: RecordedConflict
        switch pick(argument, from: conflicts) {
        case .success(let conflict): chosen = conflict
        case .failure(let message):
            context.err.line("booksctl: \(message)")
            return .notFound
        }
        let written = try await client.resolve(chosen.id, take: side)
        if json {
            context.out.line(
                JSONLine.object([
                    ("conflict", String(chosen.id)), ("id", JSONLine.string(chosen.conflict.id)),
                    ("take", JSONLine.string(side.rawValue)),
                ]))
        } else {
            let value = side == .mine ? chosen.conflict.mineValue : chosen.conflict.theirsValue
            context.out.line(
                "conflict \(chosen.id) settled: book \(TextCell.escape(chosen.conflict.id)) keeps \(side.rawValue) "
                    + "(\(chosen.conflict.field): \(TextCell.escape(value ?? "deleted")))"
                    + (written.isEmpty ? "" : ", written"))
        }
        return .success
    }

    /// The conflict `argument` names: a conflict number, else a book id or unique id prefix of
    /// a book with exactly one conflict; or why none is named.
    static func pick(_ argument: String, from conflicts: [RecordedConflict]) -> Result<RecordedConflict, Failure> {
        if let number = Int(argument), let found = conflicts.first(where: { $0.id == number }) {
            return .success(found)
        }
        let exact = conflicts.filter { $0.conflict.id == argument }
        let matching = exact.isEmpty ? conflicts.filter { $0.conflict.id.hasPrefix(argument) } : exact
        let books = Set(matching.map(\.conflict.id))
        if matching.count == 1 { return .success(matching[0]) }
        let shown = TextCell.escape(argument)
        if matching.isEmpty {
            return .failure(
                Failure(
                    "no unsettled conflict \(shown) (neither a conflict number nor a book with a conflict; "
                        + "booksctl conflicts lists them)"))
        }
        if books.count > 1 {
            return .failure(Failure("'\(shown)' names several books with conflicts; give the conflict number"))
        }
        let numbers = matching.map { String($0.id) }.joined(separator: ", ")
        return .failure(
            Failure("book \(TextCell.escape(matching[0].conflict.id)) has conflicts \(numbers): give one number"))
    }

    /// Why an argument names no single conflict.
    struct Failure: Error, Equatable, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The text table: a dimmed header, one row per conflict.
    static func table(_ conflicts: [RecordedConflict], style: Style, width: Int?) -> [String] {
        let rows = conflicts.map { c -> [String] in
            [
                String(c.id), c.conflict.id, c.conflict.field, c.conflict.mineValue ?? "(deleted)",
                c.conflict.theirsValue ?? "(deleted)", c.who.isEmpty ? "-" : c.who, ISO8601.format(c.time),
            ].map(TextCell.escape)
        }
        let header = ["ID", "BOOK", "FIELD", "MINE", "THEIRS", "WHO", "WHEN"]
        let widths = TableLayout.widths(of: [header] + rows, available: width)
        let lines = TableLayout.lines([header] + rows, widths: widths, available: width)
        return lines.enumerated().map { index, text in index == 0 ? style.dim(text) : text }
    }

    /// `{"conflict","id","field","kind","mine","theirs","who","time","seq","baseSeq"[,"store"]}`;
    /// `mine`/`theirs` are null for a deleted side.
    static func jsonLine(_ c: RecordedConflict, store: String?) -> String {
        JSONLine.object(jsonPairs(c, store: store))
    }

    /// The members of a conflict's JSON line, in order.
    static func jsonPairs(_ c: RecordedConflict, store: String?) -> [(String, String)] {
        func value(_ text: String?) -> String { text.map(JSONLine.string) ?? "null" }
        var pairs: [(String, String)] = [
            ("conflict", String(c.id)), ("id", JSONLine.string(c.conflict.id)),
            ("field", JSONLine.string(c.conflict.field)), ("kind", JSONLine.string(c.conflict.kind.rawValue)),
            ("mine", value(c.conflict.mineValue)), ("theirs", value(c.conflict.theirsValue)),
            ("who", JSONLine.string(c.who)), ("time", JSONLine.string(ISO8601.format(c.time))),
            ("seq", String(c.seq)), ("baseSeq", String(c.baseSeq)),
        ]
        if let store { pairs.append(("store", JSONLine.string(store))) }
        return pairs
    }
}
