import BooksClient
import BooksCore
import BooksProtocol

/// What a possibly shortened id argument names (pure): like git's short hashes, an argument is
/// the id it equals, else the one id it is a prefix of; when no id starts with it in the case
/// typed, the same ignoring case (`35bf` names `35BF…` when no other id starts with `35bf`).
enum IDResolution: Equatable {
    /// The full id.
    case found(String)
    /// No id starts with the argument.
    case none
    /// Several ids start with it: some of them (sorted) and how many there are.
    case ambiguous([String], total: Int)

    /// Decides from the books whose id starts with `argument` (at most a few: `candidates`) and
    /// how many there are in all (`total`).
    /// With `ignoringCase`, the candidates start with the argument ignoring case, and one that
    /// equals it ignoring case (when only one does) is the id named.
    static func resolve(
        _ argument: String, candidates: [String], total: Int, ignoringCase: Bool = false
    ) -> IDResolution {
        if candidates.contains(argument) { return .found(argument) }
        if ignoringCase {
            let equal = candidates.filter { $0.lowercased() == argument.lowercased() }
            if equal.count == 1 { return .found(equal[0]) }
        }
        if total == 1, let only = candidates.first { return .found(only) }
        if total == 0 || candidates.isEmpty { return .none }
        return .ambiguous(candidates.sorted(), total: total)
    }

    /// The usage message for an ambiguous argument, listing the candidates.
    static func ambiguityMessage(_ argument: String, _ candidates: [String], total: Int) -> String {
        var text = "id prefix '\(TextCell.escape(argument))' is ambiguous: \(total) books match"
        for id in candidates { text += "\n  \(TextCell.escape(id))" }
        if total > candidates.count { text += "\n  … and \(total - candidates.count) more" }
        return text
    }
}

/// Resolves id arguments against the daemon: one `get` when every argument is a whole id (the
/// usual case, an index lookup), else one `list` with an id-prefix filter per argument.
enum IDResolver {
    /// How many candidates an ambiguous prefix lists.
    static let shown = 10

    /// The full ids for `arguments`, in order. An unknown one throws `not-found`; an ambiguous one
    /// prints the candidates to `err` and returns nil (exit code 2).
    static func resolve(
        _ arguments: [String], _ client: any BookRequests, err: OutputWriter
    ) async throws(BooksClientError) -> [String]? {
        do throws(BooksClientError) {
            _ = try await client.get(arguments)
            return arguments
        } catch {
            guard case .daemon(let e) = error, e.code == .notFound else { throw error }
        }
        var ids: [String] = []
        for argument in arguments {
            var resolution = try await candidates(argument, .prefix, client)
            if resolution == .none { resolution = try await candidates(argument, .prefixIgnoringCase, client) }
            switch resolution {
            case .found(let id): ids.append(id)
            case .none: throw .daemon(ProtocolError(.notFound, "no book with id \(argument)"))
            case .ambiguous(let candidates, let total):
                err.line("booksctl: " + IDResolution.ambiguityMessage(argument, candidates, total: total))
                return nil
            }
        }
        return ids
    }

    /// The resolution of `argument` among the ids it is a prefix of by `op`; `.none` when the
    /// daemon does not know `op` (one older than `prefixIgnoringCase` answers `bad-request`).
    private static func candidates(
        _ argument: String, _ op: MatchOperator, _ client: any BookRequests
    ) async throws(BooksClientError) -> IDResolution {
        let filter = BookFilter([BookCondition(.id, op, argument)])
        // By id: the argument itself, when it is an id, sorts before every longer id it is a prefix of.
        let query = BookQuery(filter: filter, sort: BookSort(.id), limit: shown, offset: 0)
        do throws(BooksClientError) {
            let page = try await client.list(query)
            return IDResolution.resolve(
                argument, candidates: page.books.map(\.id), total: page.total, ignoringCase: op != .prefix)
        } catch {
            if op != .prefix, case .daemon(let e) = error, e.code == .badRequest { return .none }
            throw error
        }
    }
}
