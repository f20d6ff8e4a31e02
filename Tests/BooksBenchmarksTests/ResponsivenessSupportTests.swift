import Testing

@testable import BooksBenchmarks

/// The responsiveness benchmark's helpers: options, the hand-edit schedule, event matching and
/// the verdict in its report. Nothing here is timed.
struct ResponsivenessSupportTests {
    /// Defaults are the issue's scenario; `--quick` shrinks what was not given; shared flags reach
    /// the live options; bad values are refused.
    @Test func optionsParse() throws {
        let full = try #require(ResponsivenessOptions(arguments: []))
        #expect(full.rows == 1_000_000 && full.seconds == 20 && full.writers == 2)
        #expect(full.booksdBefore == nil)
        #expect(full.live.docsPath == "docs/BENCHMARKS.md")
        #expect(full.live.commandLine == "BooksBenchmarks responsiveness")
        let quick = try #require(ResponsivenessOptions(arguments: ["--quick", "--seconds", "5", "--no-docs"]))
        #expect(quick.rows == 20_000 && quick.seconds == 5)
        #expect(quick.live.docsPath == nil)
        let custom = try #require(
            ResponsivenessOptions(arguments: [
                "--rows", "5000", "--writers", "4", "--booksd", "/x/booksd", "--booksd-before", "/y/booksd",
                "--work-dir", "/tmp/w", "--docs", "/tmp/B.md", "--command", "run it",
            ]))
        #expect(custom.rows == 5000 && custom.writers == 4)
        #expect(custom.booksdPath == "/x/booksd" && custom.booksdBefore == "/y/booksd")
        #expect(custom.live.workDirectory == "/tmp/w" && custom.live.docsPath == "/tmp/B.md")
        #expect(custom.live.commandLine == "run it")
        #expect(ResponsivenessOptions(arguments: ["--writers", "0"])?.writers == 0, "a control run without rewrites")
        for bad in [
            ["--rows", "0"], ["--seconds", "-1"], ["--writers", "-1"], ["--booksd"], ["--edits", "3"], ["--bogus"],
        ] {
            #expect(ResponsivenessOptions(arguments: bad) == nil, "\(bad)")
        }
    }

    @Test func booksdPathsNameTheirDirectory() {
        #expect(
            ResponsivenessOptions.binDirectory(ofBooksd: "/work/wt-before/.build/release/booksd")
                == "/work/wt-before/.build/release")
        #expect(ResponsivenessOptions.binDirectory(ofBooksd: "booksd") == ".")
        #expect(ResponsivenessOptions.binDirectory(ofBooksd: "/booksd") == "/")
        #expect(ResponsivenessOptions.binDirectory(ofBooksd: "/usr/bin/booksd-old") == nil)
    }

    /// Every 5 s from 2.5 s in a long run; two edits in a short one; always before the end.
    @Test func handEditsAreSpreadOverTheRun() {
        #expect(ResponsivenessOptions.handEditTimes(seconds: 20) == [2.5, 7.5, 12.5, 17.5])
        #expect(ResponsivenessOptions.handEditTimes(seconds: 3) == [0.75, 2.25])
        #expect(ResponsivenessOptions.handEditTimes(seconds: 12) == [2.5, 7.5])
    }

    /// Only a `change` event naming exactly that id counts (not `hand-10` for `hand-1`, not a reply).
    @Test func changeEventsAnnounceTheirIDs() {
        let event =
            #"{"event":"change","epoch":"E","seq":9,"source":"file","time":"t","#
            + #""inserted":[{"id":"hand-1","name":"Hand edit 1","author":"Bench Hand"}],"updated":[],"deleted":[]}"#
        #expect(ResponsivenessLoop.announces(event, id: "hand-1"))
        #expect(!ResponsivenessLoop.announces(event, id: "hand-10"))
        let other =
            #"{"event":"change","epoch":"E","seq":9,"source":"file","time":"t","#
            + #""inserted":[{"id":"hand-10","name":"N","author":"A"}],"updated":[],"deleted":[]}"#
        #expect(!ResponsivenessLoop.announces(other, id: "hand-1"))
        #expect(
            !ResponsivenessLoop.announces(
                #"{"id":"u0-3","ok":true,"result":{"books":[{"id":"hand-1"}]}}"#, id: "hand-1"))
    }

    /// A p99 at or above 5 ms, a failed probe or a lost hand edit is reported as a miss.
    @Test func missesAreReported() throws {
        let options = try #require(ResponsivenessOptions(arguments: ["--quick"]))
        func result(
            _ label: String, probes: [Double], failures: Int = 0, arrival: Double?
        ) -> ResponsivenessBenchmark.Result {
            let m = ResponsivenessMeasurement(
                probes: Distribution(probes), probeTimeline: [], updateReplyTimes: [],
                probeFailures: failures, updates: Distribution([100]),
                updateFailures: 0, commits: 1, seconds: 1, changeEvents: 1, subscriberClosed: false,
                handEdits: [.init(id: "hand-1", at: 0, arrivalMS: arrival)])
            return .init(
                label: label, binary: "booksd", commit: nil, fileMB: 1, readyMS: 1, fullRewriteMS: 1,
                loadAtStart: "1", loadAtEnd: "1", measurement: m)
        }
        #expect(result("after", probes: [0.2, 4.9], arrival: 3).meetsTarget)
        #expect(!result("after", probes: [0.2, 5], arrival: 3).meetsTarget)
        #expect(!result("after", probes: [0.2], failures: 1, arrival: 3).meetsTarget)
        let machine = MachineInfo(processors: 2, cpuModel: "cpu", kernel: "Linux", date: "today")
        let met = ResponsivenessReport(
            machine: machine, options: options, results: [result("after", probes: [1], arrival: 3)])
        #expect(met.verdict().first?.contains("**met**; hand edits: **all reached**") == true)
        let missed = ResponsivenessReport(
            machine: machine, options: options,
            results: [result("after", probes: [9], arrival: nil), result("before", probes: [150], arrival: 2)])
        let text = missed.markdown()
        #expect(text.contains("**MISSED**; hand edits: **NOT all reached**"))
        #expect(text.contains("**not reached in 30 s**"))
        #expect(text.contains("Before the change, the same scenario: p99 150 ms"))
    }
}
