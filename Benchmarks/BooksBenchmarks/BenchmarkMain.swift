import Glibc

/// `BooksBenchmarks <subcommand>`:
/// - `core [--quick] [--work-dir DIR] [--docs FILE|--no-docs]`: parse/diff against a Python peer.
/// - `latency`, `fanout`, `writes`, `startup`, `targets` (`LiveOptions.usage`): the live daemon
///   against inotifywait, watchdog and watchman; `stream` (same options): what a subscriber and a
///   full list cost, beside the Python peer; `saves` (same options): `BooksContext` saves per
///   second beside plain inserts; `Benchmarks/run-all.sh` runs them all.
/// - `responsiveness` (`ResponsivenessOptions.usage`): hello + ping round trips and hand edits while
///   clients keep the file under durable rewrites, against the booksd from before the engine change.
/// - `nats` (`LiveOptions.usage`): booksd publishing to a real nats-server: edit → remote vs local
///   subscriber, fan-out to NATS subscribers, 32 writers (`NATSBenchmark`).
/// - `history` (`LiveOptions`): `log -n 20`, `blame`, `list --at` at 1M rows with 100,000 change
///   sets kept (built by client writes), and what attribution adds to a durable insert.
/// - `replicas` (`LiveOptions`): an owner and a replica over NATS: owner edit → replica, replica
///   edit → owner, the first copy, memory (`ReplicaBenchmark`).
/// - `merged-saves` (`LiveOptions`): a stale save merged at 1M rows vs a plain rewrite.
/// - `stores` (`LiveOptions`): 1,000 stores in one watched folder: ready, memory, inotify watches.
/// `core-rss FILE` and `nats-listen …` (`NATSListener`) are internal: the child process that measures peak memory after one parse.
@main
struct BenchmarkMain {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let subcommand = arguments.isEmpty ? "" : arguments.removeFirst()
        signal(SIGPIPE, SIG_IGN)
        #if DEBUG
        if subcommand != "core-rss" {
            Console.error("warning: debug build; timings are meaningless (use Benchmarks/run-all.sh)")
        }
        #endif
        switch subcommand {
        case "core":
            guard let options = CoreOptions(arguments: arguments) else {
                fail(CoreOptions.usage)
            }
            var benchmark = CoreBenchmark(options: options)
            benchmark.run()
        case "core-rss":
            guard arguments.count == 1 else { fail("usage: BooksBenchmarks core-rss FILE") }
            RSSProbe.run(path: arguments[0])
        case "responsiveness":
            guard let options = ResponsivenessOptions(arguments: arguments) else { fail(ResponsivenessOptions.usage) }
            ResponsivenessBenchmark(options: options).run()
        case "nats":
            guard let options = LiveOptions(arguments: arguments) else { fail(LiveOptions.usage) }
            var benchmark = NATSBenchmark(options: options)
            benchmark.run()
        case "replicas":
            guard let options = LiveOptions(arguments: arguments) else { fail(LiveOptions.usage) }
            var benchmark = ReplicaBenchmark(options: options)
            benchmark.run()
        case "nats-listen":
            NATSListener.run(arguments)
        case "stream":
            guard let options = LiveOptions(arguments: arguments) else { fail(LiveOptions.usage) }
            StreamingBenchmark(options: options).run()
        case "saves":
            guard let options = LiveOptions(arguments: arguments) else { fail(LiveOptions.usage) }
            var b = SaveBenchmark(options: options)
            b.run()
        case "history":
            guard let options = LiveOptions(arguments: arguments) else { fail(LiveOptions.usage) }
            HistoryBenchmark(options: options).run()
        case "stores":
            guard let options = LiveOptions(arguments: arguments) else { fail(LiveOptions.usage) }
            StoresBenchmark(options: options).run()
        case "merged-saves":
            guard let options = LiveOptions(arguments: arguments) else { fail(LiveOptions.usage) }
            var b = MergedSaveBenchmark(options: options)
            b.run()
        case "latency", "fanout", "writes", "startup", "targets":
            guard let options = LiveOptions(arguments: arguments) else { fail(LiveOptions.usage) }
            switch subcommand {
            case "latency":
                var b = LatencyBenchmark(options: options)
                b.run()
            case "fanout":
                var b = FanOutBenchmark(options: options)
                b.run()
            case "writes":
                var b = WriteBenchmark(options: options)
                b.run()
            case "startup":
                StartupBenchmark(options: options).run()
                RestartBenchmark(options: options).run()
            default: TargetsReport(options: options).run()
            }
        default:
            fail(
                "usage: BooksBenchmarks core|latency|fanout|writes|saves|startup|stream|nats|history|targets|responsiveness [options]\n\n"
                    + CoreOptions.usage + "\n" + LiveOptions.usage + "\n" + ResponsivenessOptions.usage)
        }
    }

    static func fail(_ message: String) -> Never {
        Console.error(message)
        exit(2)
    }
}
