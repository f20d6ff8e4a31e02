import Glibc

/// `BooksBenchmarks <subcommand>`: `core [--quick] [--work-dir DIR] [--docs FILE|--no-docs]`.
/// `core-rss FILE` is internal: the child process that measures peak memory after one parse.
@main
struct BenchmarkMain {
    static func main() {
        var arguments = Array(CommandLine.arguments.dropFirst())
        let subcommand = arguments.isEmpty ? "" : arguments.removeFirst()
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
        default:
            fail("usage: BooksBenchmarks core [--quick] [--work-dir DIR] [--docs FILE | --no-docs]")
        }
    }

    static func fail(_ message: String) -> Never {
        Console.error(message)
        exit(2)
    }
}
