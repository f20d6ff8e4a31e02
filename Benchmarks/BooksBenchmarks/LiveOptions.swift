import BooksTestSupport

/// Command-line options shared by the live benchmarks (`latency`, `fanout`, `writes`, `startup`,
/// `targets`).
struct LiveOptions: Sendable {
    static let usage = """
        usage: BooksBenchmarks latency|fanout|writes|startup|stream|targets [--quick] [--edits N]
                 [--work-dir DIR] [--docs FILE | --no-docs] [--python PATH] [--command TEXT]
          --quick      1k and 10k rows, 5 edits per cell, 1 and 10 subscribers, short write runs
          --edits N    edits per (peer, size, edit kind) cell (default 30; N/6, at least 3, at 1M rows)
          --work-dir   generated files, daemon logs, results/*.tsv (default Benchmarks/work)
          --docs       Markdown file whose section is replaced (default docs/BENCHMARKS.md)
          --python     Python 3 with watchdog and pywatchman, for the peers (default /usr/bin/python3)
          --command    the command line to print in the docs (default: Benchmarks/run-all.sh)
          --sizes LIST rows per file for latency, writes and stream, comma-separated (e.g. 1000000)
          --peers LIST latency peers to run, comma-separated (inotifywait,booksd,booksd-nats,watchdog,watchman)
          --subscribers LIST  fan-out subscriber counts (default 1,100,1000,10000; --quick: 1,10)
          --nats-booksd-before PATH  nats: also run the 32 writers against this older booksd
        """

    var quick = false
    var edits = 30
    var workDirectory = "Benchmarks/work"
    var docsPath: String? = "docs/BENCHMARKS.md"
    var python = "/usr/bin/python3"
    var command: String?
    var onlySizes: [Int]?
    var onlyPeers: [String]?
    var onlySubscribers: [Int]?
    var natsBooksdBefore: String?

    init?(arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--no-docs": docsPath = nil
            case "--edits":
                guard let v = rest.popFirst(), let n = Int(v), n > 0 else { return nil }
                edits = n
            case "--work-dir":
                guard let v = rest.popFirst() else { return nil }
                workDirectory = v
            case "--docs":
                guard let v = rest.popFirst() else { return nil }
                docsPath = v
            case "--python":
                guard let v = rest.popFirst() else { return nil }
                python = v
            case "--command":
                guard let v = rest.popFirst() else { return nil }
                command = v
            case "--sizes":
                guard let v = rest.popFirst() else { return nil }
                let sizes = v.split(separator: ",").compactMap { Int($0) }
                guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }) else { return nil }
                onlySizes = sizes
            case "--subscribers":
                guard let v = rest.popFirst() else { return nil }
                let counts = v.split(separator: ",").compactMap { Int($0) }
                guard !counts.isEmpty, counts.allSatisfy({ $0 > 0 }) else { return nil }
                onlySubscribers = counts
            case "--nats-booksd-before":
                guard let v = rest.popFirst() else { return nil }
                natsBooksdBefore = v
            case "--peers":
                guard let v = rest.popFirst() else { return nil }
                onlyPeers = v.split(separator: ",").map(String.init)
            default: return nil
            }
        }
        if quick && !arguments.contains("--edits") { edits = 5 }
    }

    var sizes: [Int] { onlySizes ?? (quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000]) }

    /// The latency peers to run, in `all` order, limited by `--peers`.
    func peers(_ all: [String]) -> [String] {
        guard let onlyPeers else { return all }
        return all.filter(onlyPeers.contains)
    }

    func edits(forRows rows: Int) -> Int { rows >= 1_000_000 ? max(3, edits / 6) : edits }

    var subscriberCounts: [Int] { onlySubscribers ?? (quick ? [1, 10] : [1, 100, 1_000, 10_000]) }

    var commandLine: String { command ?? (quick ? "Benchmarks/run-all.sh --quick" : "Benchmarks/run-all.sh") }

    /// Where booksd and booksctl are: beside this executable (same build).
    var binDirectory: String {
        let me = BuildProducts.currentExecutable()
        return String(me[..<(me.lastIndex(of: "/") ?? me.startIndex)])
    }

    var resultsDirectory: String { workDirectory + "/results" }
    var peersDirectory: String { "Benchmarks/peers" }
}
