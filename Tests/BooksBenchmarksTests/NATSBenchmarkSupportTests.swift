import Testing

@testable import BooksBenchmarks

/// The NATS benchmark's parsing and tables (nothing timed).
struct NATSBenchmarkSupportTests {
    @Test func countLinesAreParsedAndOthersRefused() {
        let parsed = NATSBenchmark.countLine("n 12 200 1000 2500")
        #expect(parsed?.messages == 12 && parsed?.books == 200 && parsed?.first == 1000 && parsed?.at == 2500)
        #expect(NATSBenchmark.countLine("n 12 200 2500") == nil, "the old four-field form")
        #expect(NATSBenchmark.countLine("ready") == nil)
        #expect(NATSBenchmark.countLine("all default:E:3 1 2") == nil)
    }

    @Test func tablesHaveAHeaderASeparatorAndOneLinePerRow() {
        let lines = NATSBenchmark.table("Intro.", ["rows", "edit", "p50"], [["10k", "append", "0.4"]])
        #expect(lines == ["Intro.", "", "| rows | edit | p50 |", "|---:|---|---:|", "| 10k | append | 0.4 |", ""])
    }

    @Test func theNATSBenchmarkOptionsAreParsed() throws {
        let options = try #require(LiveOptions(arguments: ["--quick", "--nats-booksd-before", "/opt/old/booksd"]))
        #expect(options.natsBooksdBefore == "/opt/old/booksd")
        let benchmark = NATSBenchmark(options: options)
        #expect(benchmark.sizes == [10_000] && benchmark.subscriberCounts == [1, 100])
        #expect(LiveOptions(arguments: ["--nats-booksd-before"]) == nil)
    }
}
