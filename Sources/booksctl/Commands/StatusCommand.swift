import BooksClient
import BooksCore
import BooksProtocol
import FoundationEssentials

/// `booksctl status [--json]`.
struct StatusCommand: Equatable {
    var json = false

    static func run(json: Bool, _ context: CommandContext) async throws(BooksClientError) -> ExitCode {
        let client = try await context.connect()
        defer { client.close() }
        let status: DaemonStatus
        do {
            status = try await client.status()
        } catch .daemon(let error) where error.code == .storeRequired {
            // Several stores and none named: the status of each.
            guard let socket = client as? BooksClient, let names = error.stores else { throw .daemon(error) }
            return try await every(names, socket, json: json, context)
        }
        if json {
            context.out.line(try encode(status))
        } else {
            context.out.write(summary(status, style: context.style))
        }
        return .success
    }

    /// The status of each store: text blocks headed `store: NAME`, or one JSON object by name.
    static func every(
        _ names: [String], _ client: BooksClient, json: Bool, _ context: CommandContext
    ) async throws(BooksClientError) -> ExitCode {
        var statuses: [String: DaemonStatus] = [:]
        for name in names {
            let status = try await client.store(name).status()
            statuses[name] = status
            if !json {
                context.out.write(
                    context.style.bold("store:".padding(13)) + TextCell.escape(name) + "\n"
                        + summary(status, style: context.style) + (name == names.last ? "" : "\n"))
            }
        }
        if json { context.out.line(try encode(statuses)) }
        return .success
    }

    /// Pretty-printed JSON with sorted keys.
    static func encode(_ value: some Encodable) throws(BooksClientError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else {
            throw .protocolError(ProtocolError(.internalError, "cannot encode status"))
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The human summary.
    static func summary(_ s: DaemonStatus, style: Style) -> String {
        var lines: [String] = []
        // Every text comes from the daemon, and some of it from the file (bad lines, ids): escaped.
        let e = TextCell.escape
        func row(_ key: String, _ value: String) { lines.append(style.bold((key + ":").padding(13)) + value) }
        row("server", e(s.server))
        row("file", "\(e(s.file)) (\(e(s.format)))")
        var state = e(s.fileState)
        if let problem = s.fileProblem { state += ": \(e(problem))" }
        row("state", s.fileState == "present" ? state : style.red(state))
        row("books", String(s.bookCount))
        if s.badLines.isEmpty {
            row("bad lines", "none")
        } else {
            row("bad lines", style.yellow(String(s.badLines.count)))
            for bad in s.badLines { lines.append(BadLineFormat.text(bad, file: s.file)) }
        }
        if !s.heldBooks.isEmpty {
            row(
                "held books",
                "\(s.heldBooks.count) (kept at last good values): " + s.heldBooks.map(e).joined(separator: ", "))
        }
        if let conflicts = s.conflicts, !conflicts.isEmpty {
            row("conflicts", style.yellow("\(conflicts.count) (merged saves; the saver's value stands in the file)"))
            for c in conflicts {
                let theirs = c.conflict.theirsValue.map { "\"\(e($0))\"" } ?? "deleted"
                let mine = c.conflict.mineValue.map { "\"\(e($0))\"" } ?? "deleted"
                lines.append(
                    "  #\(c.id) \(e(c.conflict.id)) \(c.conflict.field): file \(mine), others \(theirs) (seq \(c.seq))")
            }
            lines.append("  settle one: booksctl resolve ID --take mine|theirs (booksctl conflicts lists them)")
        }
        if let reverts = s.reverts, !reverts.isEmpty {
            row(
                "reverted",
                style.yellow("file edits undid client writes (seq \(reverts.map(String.init).joined(separator: ", ")))")
            )
        }
        if let replica = s.replica { row("replica", e(replica)) }
        var watcher = e(s.watcherMode)
        if let warning = s.watcherWarning { watcher += " — " + style.yellow(e(warning)) }
        row("watcher", watcher)
        row("epoch", e(s.epoch))
        row("seq", "\(s.seq) (replayable from \(s.oldestReplayableSeq))")
        if let oldest = s.historyOldestSeq {
            row(
                "history",
                "from seq \(oldest) (\(HistoryPrinter.localTime(s.historyOldestTime))), \(s.historyBytes ?? 0) bytes")
        }
        row("subscribers", String(s.subscribers))
        row("clients", String(s.clients))
        row("uptime", duration(s.uptimeSeconds))
        if let last = s.lastChange { row("last change", e(last)) }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `3d 4h 5m 6s` style.
    static func duration(_ seconds: Double) -> String {
        var rest = Int(seconds.rounded(.down))
        let days = rest / 86400
        rest %= 86400
        let hours = rest / 3600
        rest %= 3600
        let minutes = rest / 60
        rest %= 60
        var parts: [String] = []
        if days > 0 { parts.append("\(days)d") }
        if hours > 0 || !parts.isEmpty { parts.append("\(hours)h") }
        if minutes > 0 || !parts.isEmpty { parts.append("\(minutes)m") }
        parts.append("\(rest)s")
        return parts.joined(separator: " ")
    }
}
