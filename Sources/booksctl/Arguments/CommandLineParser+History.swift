import BooksProtocol
import FoundationEssentials

/// `log`, `show`, `blame` and `undo` on the command line; every WHEN is read here, so a bad one
/// is a usage error (exit 2) with the forms accepted.
extension CommandLineParser {
    static func history(_ spec: CommandSpec, _ args: ScannedArguments, json: Bool) throws(UsageError) -> Command {
        func fail(_ message: String) -> UsageError { UsageError(message: message, command: spec.name) }
        let p = args.positionals
        switch spec.name {
        case "log":
            if let unexpected = p.first { throw fail("unexpected argument '\(unexpected)'") }
            var options = LogOptions(json: json, name: args.values["name"], author: args.values["author"])
            options.since = try args.values["since"].map { text throws(UsageError) in try when(text, "--since", spec) }
            options.until = try args.values["until"].map { text throws(UsageError) in try when(text, "--until", spec) }
            if let text = args.values["max-count"] {
                guard let value = Int(text), value > 0 else { throw fail("-n needs a positive number, not '\(text)'") }
                options.count = value
            }
            if let id = args.values["id"] {
                guard !id.isEmpty else { throw fail("--id needs a book id") }
                options.id = id
            }
            options.patch = args.flags.contains("patch")
            options.follow = args.flags.contains("follow")
            return .log(options)
        case "show":
            guard p.count == 1 else { throw fail(p.isEmpty ? "missing argument SEQ" : "show takes one SEQ") }
            return .show(seq: try seq(p[0], spec), json: json)
        case "blame":
            if let empty = p.firstIndex(of: "") { throw fail("ID \(empty + 1) must not be empty") }
            return .blame(ids: p, json: json)
        default:
            guard !p.isEmpty else { throw fail("missing argument SEQ") }
            var seqs: [UInt64] = []
            for text in p { seqs.append(try seq(text, spec)) }
            return .undo(seqs: seqs, force: args.flags.contains("force"), json: json)
        }
    }

    /// A WHEN (``HistoryPoint``), read now in the local time zone.
    static func when(_ text: String, _ option: String, _ spec: CommandSpec) throws(UsageError) -> HistoryPoint {
        do throws(HistoryPointError) {
            return try HistoryPoint.parse(text, now: Date(), zone: .system)
        } catch {
            throw UsageError(message: "\(option): \(error.description)", command: spec.name)
        }
    }

    private static func seq(_ text: String, _ spec: CommandSpec) throws(UsageError) -> UInt64 {
        guard let value = UInt64(text), value > 0 else {
            throw UsageError(
                message: "SEQ is a change set's number (as log prints it), not '\(text)'", command: spec.name)
        }
        return value
    }
}
