import BooksClient
import BooksCore
import BooksProtocol

#if canImport(Glibc)
import Glibc
#endif

/// `booksctl edit`: the store's books in `$VISUAL`/`$EDITOR`, saved with the version the editor
/// got as the base (like `crontab -e`). The daemon merges books changed meanwhile by others field
/// by field and keeps the conflicts (`booksctl conflicts`); nothing is written unless the editor
/// exits 0 and the file reads cleanly, and whenever nothing could be written the temporary file
/// is kept and named.
struct EditCommand: Equatable {
    /// How many times a save is rebased onto books that keep changing before giving up.
    static let maxRounds = 5

    static func run(_ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let (base, position) = try await readBase(context)
        let written = EditPlan.text(of: base, store: context.store, seq: position.seq)
        let path: String
        do { path = try EditorSession.writeTemporary(written) } catch {
            context.err.line("booksctl: \(TextCell.escape(error.description))")
            return .daemonError
        }
        func keep(_ why: String, _ code: ExitCode) -> ExitCode {
            context.err.line("booksctl: \(TextCell.escape(why)); nothing was saved; the edit is kept in \(path)")
            return code
        }
        if let failure = EditorSession.runEditor(EditorSession.editorCommand, on: path) {
            return keep(failure, .daemonError)
        }
        let edited: [UInt8]
        do { edited = try EditorSession.contents(of: path) } catch { return keep(error.description, .daemonError) }
        let plan: EditPlan
        switch EditPlan.plan(base: base, written: written, edited: edited) {
        case .success(let made): plan = made
        case .failure(.badLines(let lines)):
            for bad in lines { context.err.line(BadLineFormat.text(bad, file: path)) }
            return keep("\(lines.count) line(s) are not books", .daemonError)
        case .failure(.unknownIDs(let ids)):
            let shown = ids.prefix(5).map(TextCell.escape).joined(separator: ", ")
            return keep("no book has the id \(shown) (a new book is written as name|author)", .daemonError)
        }
        if plan.isEmpty {
            unlink(path)
            context.out.line("no changes; nothing saved")
            return .success
        }
        do {
            let outcome = try await submit(plan, base: position, context)
            unlink(path)
            report(outcome, context)
            return outcome.conflicts.isEmpty && outcome.recorded.isEmpty ? .success : .conflict
        } catch {
            context.err.line(ErrorReporter.message(for: error))
            return keep("the save failed", ErrorReporter.exitCode(for: error))
        }
    }

    /// The store's books as of one seq (the save's base: epoch and seq of the list), with their
    /// versions (sent as `expectedVersion`s too, so that a daemon that does not know `base`
    /// refuses a save over books changed meanwhile). A book deleted or changed between the list
    /// and the versioned read is read again.
    static func readBase(_ context: CommandContext) async throws(BooksClientError) -> ([VersionedBook], ResumePoint) {
        let client = try await context.connect()
        defer { client.close() }
        var attempt = 0
        while true {
            attempt += 1
            let page = try await client.list(BookQuery())
            let position = ResumePoint(epoch: page.epoch ?? "", seq: page.seq)
            if page.books.isEmpty { return ([], position) }
            do {
                let versioned = try await client.get(page.books.map(\.id))
                let same = zip(versioned, page.books).allSatisfy { Optional($0.book).isIdentical(to: $1) }
                if same || attempt >= maxRounds {
                    return (zip(versioned, page.books).map { VersionedBook(book: $1, version: $0.version) }, position)
                }
            } catch .daemon(let e) where e.code == .notFound && attempt < maxRounds {
                continue
            }
        }
    }

    /// What a submitted edit did.
    struct Outcome {
        var result: BookSaveResult?
        var reinserted: [Book] = []
        var conflicts: [MergeConflict] = []
        /// The conflicts the daemon recorded (a save with a base).
        var recorded: [RecordedConflict] = []
        var merged = 0
        /// The plan last sent (after any merge).
        var sent: EditPlan?
    }

    /// Sends the save with its base: the daemon merges it and records its conflicts. A daemon
    /// that does not know `base` checks the versions instead; on its `conflict`, the books that
    /// changed are merged here and the save is sent again.
    static func submit(
        _ first: EditPlan, base: ResumePoint, _ context: CommandContext
    ) async throws(BooksClientError) -> Outcome {
        let client = try await context.connect()
        defer { client.close() }
        var plan = first
        var expected: [String: UInt64] = [:]
        var outcome = Outcome()
        var conflicts: [String: MergeConflict] = [:]
        var round = 0
        while !plan.isEmpty {
            round += 1
            let request = plan.request(expecting: expected)
            outcome.sent = plan
            do {
                let result = try await client.save(
                    inserted: request.inserted, updated: request.updated, deleted: request.deleted,
                    base: round == 1 ? base : nil)
                outcome.result = result
                outcome.recorded = result.conflicts
                outcome.merged += result.merged.count
                break
            } catch .daemon(let e) where e.code == .conflict && e.conflicts != nil && round < maxRounds {
                let rebase = plan.rebased(onto: e.conflicts ?? [], expected: expected)
                outcome.merged += e.conflicts?.count ?? 0
                plan = rebase.plan
                expected = rebase.expected
                outcome.reinserted += rebase.reinserted
                for conflict in rebase.conflicts { conflicts["\(conflict.id)\u{0}\(conflict.field)"] = conflict }
            }
        }
        if !outcome.reinserted.isEmpty {
            _ = try await client.insert(
                outcome.reinserted.map { BookDraft(id: $0.id, name: $0.name, author: $0.author) })
        }
        outcome.conflicts = conflicts.values.sorted { ($0.id, $0.field) < ($1.id, $1.field) }
        return outcome
    }

    /// `saved at seq N: A added, C changed, D deleted[, merged with K concurrent change(s)]`, and
    /// one line on stderr per conflict with the others' value and how to put it back.
    static func report(_ outcome: Outcome, _ context: CommandContext) {
        let sent = outcome.sent
        let added = (sent?.inserted.count ?? 0) + outcome.reinserted.count
        var line = "saved"
        if let seq = outcome.result?.seq { line += " at seq \(seq)" }
        line += ": \(added) added, \(sent?.updated.count ?? 0) changed, \(sent?.deleted.count ?? 0) deleted"
        if outcome.merged > 0 { line += ", merged with \(outcome.merged) book(s) changed meanwhile" }
        context.out.line(line)
        for c in outcome.conflicts { context.err.line(conflictLine(c, kept: nil)) }
        for recorded in outcome.recorded { context.err.line(conflictLine(recorded.conflict, kept: recorded.id)) }
    }

    /// `booksctl: conflict: book ID FIELD: yours 'A' is in the file; theirs was 'B'`, and how to
    /// put theirs back: `booksctl resolve N --take theirs` for a conflict the daemon keeps (`kept`:
    /// its number), or the `booksctl update` that writes it.
    static func conflictLine(_ c: MergeConflict, kept: Int?) -> String {
        let theirs = c.theirsValue.map { "'\(TextCell.escape($0))'" } ?? "deleted"
        let mine = c.mineValue.map { "'\(TextCell.escape($0))'" } ?? "deleted"
        var text = "booksctl: conflict: book \(TextCell.escape(c.id)) \(c.field): yours \(mine) is in the file; "
        text += "theirs was \(theirs)"
        var fixes: [String] = []
        if let kept { fixes.append("kept as conflict \(kept): booksctl resolve \(kept) --take theirs") }
        if let value = c.theirsValue, c.field == "name" || c.field == "author" {
            fixes.append(
                "booksctl update \(TextCell.escape(c.id)) --\(c.field) \(CompletionScript.quoted(TextCell.escape(value)))"
            )
        }
        if !fixes.isEmpty { text += " (\(fixes.joined(separator: ", or ")) puts it back)" }
        return text
    }
}
