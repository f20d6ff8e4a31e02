/// Command-line options of the `core` benchmark.
struct CoreOptions: Sendable {
    static let usage = """
        usage: BooksBenchmarks core [--quick] [--work-dir DIR] [--docs FILE | --no-docs] [--python PATH]
          --quick      sizes 1k and 10k only, 3 runs each (CI smoke run; still writes the docs section
                       unless --no-docs)
          --work-dir   where generated files go (default Benchmarks/work)
          --docs       Markdown file whose "## Core: parse and diff" section is replaced
                       (default docs/BENCHMARKS.md)
          --python     Python 3 interpreter for the peer (default python3 from PATH)
        """

    var quick = false
    var workDirectory = "Benchmarks/work"
    var docsPath: String? = "docs/BENCHMARKS.md"
    var python = "python3"
    var peerScript = "Benchmarks/peers/parse_peer.py"

    init?(arguments: [String]) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--no-docs": docsPath = nil
            case "--work-dir":
                guard let v = rest.popFirst() else { return nil }
                workDirectory = v
            case "--docs":
                guard let v = rest.popFirst() else { return nil }
                docsPath = v
            case "--python":
                guard let v = rest.popFirst() else { return nil }
                python = v
            default: return nil
            }
        }
    }

    /// Row counts to benchmark.
    var sizes: [Int] { quick ? [1_000, 10_000] : [1_000, 10_000, 100_000, 1_000_000] }

    /// Runs per measurement (the median is reported).
    func runs(forRows rows: Int) -> Int { quick ? 3 : (rows >= 1_000_000 ? 5 : 7) }

    /// The command line that reproduces this run.
    var commandLine: String {
        quick ? "Benchmarks/run-core.sh --quick" : "Benchmarks/run-core.sh"
    }
}
