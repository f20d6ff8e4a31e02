/// Command-line options of `BooksBenchmarks responsiveness`; the flags it shares with the live
/// benchmarks (`--work-dir`, `--docs`, `--no-docs`, `--command`) are kept in `live`.
struct ResponsivenessOptions: Sendable {
    static let usage = """
        usage: BooksBenchmarks responsiveness [--quick] [--rows N] [--seconds S] [--writers W]
                 [--booksd PATH] [--booksd-before PATH] [--work-dir DIR] [--docs FILE | --no-docs] [--command TEXT]
          --quick          20,000 rows for 3 s (unless --rows / --seconds are given)
          --rows N         rows in the generated file (default 1,000,000)
          --seconds S      how long the writers keep rewriting the file (default 20)
          --writers W      connections each looping `update` → reply (default 2; 0: a control run
                           without rewrites, only probes and hand edits)
          --booksd PATH    the booksd under test (default: the booksd beside this executable)
          --booksd-before PATH
                           a booksd built from the commit before the engine change (5d99280): the
                           same scenario runs against it next, on a fresh copy of the file
          --work-dir, --docs, --no-docs, --command: as for the live benchmarks
        """

    /// How long the subscriber may take to report a hand edit before it counts as not reached.
    static let handEditLimitSeconds = 30.0
    /// Hand edits are spread over the run this far apart (closer in runs shorter than 10 s).
    static let handEditSpacingSeconds = 5.0

    /// `--quick`: the smoke run's defaults.
    var quick = false
    /// Rows in the generated file.
    var rows = 1_000_000
    /// How long the writers keep rewriting the file.
    var seconds = 20.0
    /// Writer connections (0: a control run without rewrites).
    var writers = 2
    /// `--booksd`: the booksd under test, when not the one beside this executable.
    var booksd: String?
    /// `--booksd-before`: the booksd from before the engine change, when it is to be measured.
    var booksdBefore: String?
    /// The shared live-benchmark options (work directory, docs file, command text).
    var live: LiveOptions

    /// Parses `arguments`; nil on an unknown flag or a bad value.
    init?(arguments: [String]) {
        var shared: [String] = []
        var rowsGiven = false
        var secondsGiven = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--quick": quick = true
            case "--rows":
                guard let v = rest.popFirst(), let n = Int(v), n >= 100 else { return nil }
                rows = n
                rowsGiven = true
            case "--seconds":
                guard let v = rest.popFirst(), let s = Double(v), s > 0, s <= 3600 else { return nil }
                seconds = s
                secondsGiven = true
            case "--writers":
                guard let v = rest.popFirst(), let n = Int(v), n >= 0, n <= 64 else { return nil }
                writers = n
            case "--booksd":
                guard let v = rest.popFirst() else { return nil }
                booksd = v
            case "--booksd-before":
                guard let v = rest.popFirst() else { return nil }
                booksdBefore = v
            case "--no-docs": shared.append(argument)
            case "--work-dir", "--docs", "--command":
                guard let v = rest.popFirst() else { return nil }
                shared += [argument, v]
            default: return nil
            }
        }
        guard let live = LiveOptions(arguments: shared) else { return nil }
        self.live = live
        if quick && !rowsGiven { rows = 20_000 }
        if quick && !secondsGiven { seconds = 3 }
        if self.live.command == nil {
            self.live.command = (["BooksBenchmarks", "responsiveness"] + arguments).joined(separator: " ")
        }
    }

    /// The booksd under test: `--booksd`, else the one beside this executable (same build).
    var booksdPath: String { booksd ?? live.binDirectory + "/booksd" }

    /// The directory of a `…/booksd` path (what `DaemonProcess` takes); nil when the file is not
    /// named `booksd`.
    static func binDirectory(ofBooksd path: String) -> String? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.last == "booksd" else { return nil }
        if parts.count == 1 { return "." }
        let directory = parts.dropLast().joined(separator: "/")
        return directory.isEmpty ? "/" : directory
    }

    /// Seconds after the start at which a hand edit is made: every 5 s from 2.5 s (for runs
    /// under 10 s, two edits at ¼ and ¾ of the run), all before the writers stop.
    static func handEditTimes(seconds: Double) -> [Double] {
        let spacing = min(handEditSpacingSeconds, seconds / 2)
        return stride(from: spacing / 2, to: seconds, by: spacing).map { $0 }
    }
}
