import BooksCore
import BooksTestSupport
import Testing

/// Support for the replica tests: a `booksd --replica default=FILE` on a file of its own, hand
/// edits with `sed -i`, and the end-of-test check that every file holds the same records.
enum ReplicaDaemon {
    /// A replica of the store `default` on an empty file, following `server`.
    static func start(_ server: NATSServerProcess, rows: [String] = []) async throws -> FeedDaemon {
        try await FeedDaemon(rows: rows, settings: ["nats_url=\(server.url)"], replica: true)
    }

    /// `sed -i EXPRESSION FILE` (a hand edit as scripts make it: a new file renamed over the old).
    static func sed(_ expression: String, _ file: String) async throws {
        let result = try await ChildProcess.run(["sed", "-i", expression, file], timeout: 20)
        if !result.succeeded { throw TestSupportError("sed failed: \(result.output)") }
    }

    /// Waits until every daemon's file holds exactly `rows` (in any order), then checks that no
    /// file has a bad line or a duplicate id.
    static func expectConverged(
        _ daemons: [FeedDaemon], to rows: [String], timeout: Double = 60,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let expected = Set(rows)
        let converged = await eventually(timeout: timeout, interval: 0.1) {
            daemons.allSatisfy { Set(lines(of: $0)) == expected }
        }
        let report = daemons.enumerated().map { index, daemon in
            "--- daemon \(index) (\(daemon.file)):\n\((try? daemon.readFile()) ?? "(unreadable)")\n"
                + "--- log:\n\(daemon.log.suffix(2500))"
        }.joined(separator: "\n")
        #expect(converged, "expected \(rows.sorted())\n\(report)", sourceLocation: sourceLocation)
        for daemon in daemons {
            let all = lines(of: daemon)
            let bad = all.filter { $0.split(separator: "|", omittingEmptySubsequences: false).count != 3 }
            #expect(bad.isEmpty, "bad lines in \(daemon.file): \(bad)", sourceLocation: sourceLocation)
            let ids = all.map { $0.split(separator: "|").first.map(String.init) ?? "" }
            #expect(
                Set(ids).count == ids.count, "duplicate ids in \(daemon.file): \(ids)", sourceLocation: sourceLocation)
        }
    }

    /// The file's lines that are not comments or blank.
    static func lines(of daemon: FeedDaemon) -> [String] {
        ((try? daemon.readFile()) ?? "").split(separator: "\n").map(String.init).filter {
            !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty
        }
    }
}
