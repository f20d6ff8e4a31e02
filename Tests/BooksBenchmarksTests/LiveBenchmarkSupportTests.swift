import BooksCore
import BooksTestSupport
import Glibc
import Testing

@testable import BooksBenchmarks

/// The live benchmarks' helpers: percentile math, line matching, edits, the Python peers' diff
/// logic and target verdicts. Nothing here is timed.
struct LiveBenchmarkSupportTests {
    /// `--sizes` and `--peers` narrow a run (for focused measurements); bad values are refused.
    @Test func sizeAndPeerSelection() throws {
        let all = try #require(LiveOptions(arguments: []))
        #expect(all.sizes == [1_000, 10_000, 100_000, 1_000_000])
        #expect(all.peers(LatencyBenchmark.peers) == LatencyBenchmark.peers)
        let narrow = try #require(LiveOptions(arguments: ["--sizes", "1000000,1000", "--peers", "booksd,inotifywait"]))
        #expect(narrow.sizes == [1_000_000, 1_000])
        #expect(narrow.peers(LatencyBenchmark.peers) == ["inotifywait", "booksd"], "in the suite's order")
        #expect(LiveOptions(arguments: ["--sizes", "0"]) == nil)
        #expect(LiveOptions(arguments: ["--sizes", "many"]) == nil)
        #expect(LiveOptions(arguments: ["--peers"]) == nil)
        #expect(all.subscriberCounts == [1, 100, 1_000, 10_000])
        #expect(try #require(LiveOptions(arguments: ["--quick"])).subscriberCounts == [1, 10])
        #expect(try #require(LiveOptions(arguments: ["--subscribers", "10000,1"])).subscriberCounts == [10_000, 1])
        #expect(LiveOptions(arguments: ["--subscribers", "0"]) == nil)
    }

    /// The fan-out pool's line helpers: the subscribe line (resume point, optional filter) and the
    /// seq of a change event read from raw bytes.
    @Test func subscriberPoolLines() {
        let point = (epoch: "E1", seq: UInt64(41))
        #expect(
            SubscriberPool.subscribeLine(point: point, authorContains: nil)
                == #"{"id":"s","op":"subscribe","resume":{"epoch":"E1","seq":41}}"#)
        #expect(
            SubscriberPool.subscribeLine(point: point, authorContains: "Filter-07")
                == #"{"id":"s","op":"subscribe","resume":{"epoch":"E1","seq":41},"#
                + #""filter":{"conditions":[{"field":"author","op":"contains","value":"Filter-07"}]}}"#)
        func seq(_ line: String) -> UInt64? {
            Array(line.utf8).withUnsafeBufferPointer { SubscriberPool.changeSeq($0) }
        }
        #expect(seq(#"{"event":"change","epoch":"E1","seq":1234,"inserted":[]}"#) == 1234)
        #expect(seq(#"{"event":"heartbeat","epoch":"E1","seq":7}"#) == nil)
        #expect(FanOutFilters.author(7) == "Filter-007")
    }

    @Test func nearestRankPercentiles() {
        let d = Distribution((1...100).map(Double.init).reversed())
        #expect(d.p50 == 50)
        #expect(d.p90 == 90)
        #expect(d.p99 == 99)
        #expect(d.max == 100)
        let small = Distribution([3, 1, 2])
        #expect(small.p50 == 2)
        #expect(small.p99 == 3)
        #expect(small.percentile(1) == 1)
        #expect(Distribution([]).p50.isNaN)
        #expect(Distribution([7]).p90 == 7)
    }

    @Test func readsFieldsOfSubscriberLines() {
        let line =
            #"{"seq":12,"kind":"update","id":"0b6e-x","name":"Le \"Rouge\" ✎","author":"Zoë","source":"file"}"#
        #expect(JSONLine.string("kind", in: line) == "update")
        #expect(JSONLine.string("id", in: line) == "0b6e-x")
        #expect(JSONLine.string("name", in: line) == #"Le "Rouge" ✎"#)
        #expect(JSONLine.integer("seq", in: line) == 12)
        #expect(JSONLine.string("missing", in: line) == nil)
        #expect(JSONLine.quoted("a\"b\\c\n") == #""a\"b\\c\n""#)
        let expected = ExpectedChange(kind: "update", id: "0b6e-x")
        #expect(LatencyBenchmark.matches(line, expected, peer: "booksd"))
        #expect(LatencyBenchmark.matches(line, expected, peer: "watchdog"))
        #expect(!LatencyBenchmark.matches(line, ExpectedChange(kind: "delete", id: "0b6e-x"), peer: "booksd"))
        let fromClient = #"{"seq":13,"kind":"update","id":"0b6e-x","name":"N","author":"A","source":"client"}"#
        #expect(!LatencyBenchmark.matches(fromClient, expected, peer: "booksd"))
        #expect(LatencyBenchmark.matches(fromClient, expected, peer: "watchdog"))
        #expect(LatencyBenchmark.matches("CLOSE_WRITE,CLOSE books.txt", expected, peer: "inotifywait"))
        #expect(!LatencyBenchmark.matches("CLOSE_WRITE,CLOSE books.txt.bench-tmp", expected, peer: "inotifywait"))
    }

    /// Each edit kind changes exactly the one book it announces, as the daemon's diff sees it.
    @Test(arguments: LiveEditKind.allCases)
    func everyLiveEditAnnouncesItsOneChange(kind: LiveEditKind) throws {
        let directory = "/tmp/books-bench-test-\(getpid())-\(kind.slug)"
        FileBytes.makeDirectory(directory)
        defer {
            unlink(directory + "/books.txt")
            rmdir(directory)
        }
        var file = try LiveBookFile(path: directory + "/books.txt", rows: 200)
        var document = BookDocument(parsing: file.content)
        for _ in 0..<3 {
            let (expected, _) = file.perform(kind)
            let onDisk = try FileBytes.read(file.path)
            #expect(onDisk == file.content)
            let changes = document.updateFully(to: onDisk)
            #expect(changes.count == 1)
            let ids = changes.inserted.map(\.id) + changes.updated.map(\.new.id) + changes.deleted.map(\.id)
            #expect(ids == [expected.id])
            let kindSeen = !changes.inserted.isEmpty ? "insert" : (!changes.updated.isEmpty ? "update" : "delete")
            #expect(kindSeen == expected.kind)
        }
    }

    /// The Python peers' re-read-and-diff (Benchmarks/peers/bookdiff.py), run on two small files.
    @Test func pythonPeerDiffReportsEachChangedBookOnce() throws {
        let python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3"
        let scratch = try TemporaryDirectory(prefix: "books-bench-diff", base: "/tmp")
        defer { scratch.remove() }
        let directory = scratch.path
        try FileBytes.write(Array("a|A|x\nb|B|y\nc|C|z\nbad line\n".utf8), to: directory + "/old.txt")
        try FileBytes.write(Array("a|A|x\nb|B2|y\nd|Dé|w\n".utf8), to: directory + "/new.txt")
        let result = PeerRun.run([
            python, "Benchmarks/peers/bookdiff.py", "--diff", directory + "/old.txt", directory + "/new.txt",
        ])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        let seen = lines.map { "\(JSONLine.string("kind", in: $0) ?? "?") \(JSONLine.string("id", in: $0) ?? "?")" }
        #expect(seen == ["update b", "insert d", "delete c"])
        #expect(lines.map { JSONLine.integer("seq", in: $0) } == [1, 2, 3])
        #expect(JSONLine.string("name", in: lines[1]) == "Dé")
    }

    @Test func targetsAreJudgedAndMissesShown() {
        func cell(_ peer: String, _ rows: Int, _ edit: String, _ p50: Double, _ p99: Double) -> [String: String] {
            ["peer": peer, "rows": String(rows), "edit": edit, "p50": String(p50), "p99": String(p99)]
        }
        var latency: [[String: String]] = []
        for edit in LiveEditKind.allCases.map(\.slug) {
            latency += [
                cell("inotifywait", 1000, edit, 0.1, 0.2), cell("booksd", 1000, edit, 0.5, 1),
                cell("inotifywait", 10_000, edit, 0.1, 0.2), cell("booksd", 10_000, edit, 2, 3),
                cell("booksd", 100_000, edit, 1, 2), cell("watchdog", 100_000, edit, 40, 50),
                cell("watchman", 100_000, edit, 35, 90),
            ]
        }
        let verdicts = TargetsReport.judge(
            latency: latency, rss: [["rows": "1000000", "booksd_kb": "100", "watchdog_kb": "600"]],
            fanout: [
                ["subscribers": "1", "last_p50": "1", "first_change_ms": "1.5"],
                ["subscribers": "1000", "last_p50": "12", "first_change_ms": "30"],
                ["subscribers": "10000", "last_p50": "50", "first_change_ms": "60"],
            ],
            writes: [
                ["rows": "1000000", "writers": "1", "per_second": "10", "p50": "5", "rewrite_ms": "100"],
                ["rows": "1000000", "writers": "32", "per_second": "40", "p50": "9", "rewrite_ms": "100"],
            ],
            startup: [])
        func verdict(_ prefix: String) -> Bool?? { verdicts.first { $0.target.hasPrefix(prefix) }.map(\.hit) }
        #expect(verdict("1k append") == .some(true))
        #expect(verdict("10k append") == .some(false))  // 2 ms vs floor 0.1 ms
        #expect(verdict("100k append p50") == .some(true))  // 35×
        #expect(verdict("100k append p99") == .some(false))  // best peer p99 50 ms / 2 ms = 25×
        #expect(verdicts.first { $0.target.hasPrefix("100k append p99") }?.measured.hasSuffix("25.0×") == true)
        #expect(verdict("1M VmRSS") == .some(true))
        #expect(verdict("1000 subscribers: last") == .some(false))  // 12×
        #expect(verdict("10000 subscribers: last") == .some(true))  // 50× ≤ 60×
        #expect(verdict("1 subscribers: first change") == .some(true))  // 1.5×
        #expect(verdict("1000 subscribers: first change") == .some(false))  // 2.5×
        #expect(verdict("10000 subscribers: first change") == .some(true))  // 1.2×
        #expect(verdict("1M rows: 32 writers") == .some(false))
        #expect(verdict("1M rows: one durable insert") == .some(true))
        #expect(verdict("1M rows: exec") == .some(nil))
        #expect(verdict("1M append p50") == .some(nil))
    }
}
