import BooksTestSupport
import Glibc

/// `BooksBenchmarks stores`: many stores in one watched folder: 1,000 files of 1,000
/// rows (`--quick`: 100) in one `--dir`; 3 cold starts (saved histories removed: each store
/// creates its history) and 3 warm restarts (histories kept and restored). Per start: exec →
/// ready (socket answers `hello`), the daemon's CPU time by then, VmRSS and VmHWM once ready,
/// the inotify watches it holds (lines `inotify wd:` in `/proc/PID/fdinfo` of its inotify
/// descriptor) and how long SIGTERM takes (every store's history closed durably).
/// Targets: ready ≤ 1.5 s; VmRSS ≤ 2 × total file size + 32 MB; watches: one for the folder
/// (the hub also watches its own wake-up pipe: 2 lines expected).
struct StoresBenchmark {
    static let heading = "## Live: many stores in one watched folder"

    let options: LiveOptions
    var stores: Int { options.quick ? 100 : 1_000 }
    let rows = 1_000

    init(options: LiveOptions) { self.options = options }

    /// The medians of three starts.
    struct Sample {
        var ready = 0.0, cpu = 0.0, stop = 0.0, rss = 0.0, hwm = 0.0
        var runs: [Double] = []
        var watches: [Int] = []
    }

    func run() {
        let machine = MachineInfo.current()
        let directory = "\(options.workDirectory)/live/stores"
        let folder = directory + "/folder"
        TestFiles.removeTree(folder)
        FileBytes.makeDirectory(directory)
        FileBytes.makeDirectory(folder)
        var generator = BookFileGenerator()
        var totalBytes = 0
        for index in 0..<stores {
            let bytes = generator.file(rows: rows)
            totalBytes += bytes.count
            guard (try? TestFiles.write(bytes, to: "\(folder)/s\(index).txt")) != nil else { exit(1) }
        }
        let cold = measure(directory: directory, folder: folder, warm: false)
        let warm = measure(directory: directory, folder: folder, warm: true)
        let latency = StoresLatency(options: options, directory: directory).run(folder: folder, storeCount: stores)
        let totalMB = Double(totalBytes) / 1_048_576
        let rssLimit = 2 * totalMB + 32
        var tsv: [[String]] = []
        for (name, s) in [("cold", cold), ("warm", warm)] {
            let watches = s.watches.map(String.init).joined(separator: ",")
            var row = [name, String(stores), String(rows), String(totalMB), String(s.ready), String(s.cpu)]
            row += [String(s.stop), String(s.rss), String(s.hwm), String(rssLimit), watches]
            tsv.append(row)
        }
        ResultsFile.write(
            "stores",
            header: [
                "start", "stores", "rows", "total_mb", "ready_ms_median", "cpu_ms_median", "stop_ms_median", "rss_mb",
                "hwm_mb", "rss_limit_mb", "watches",
            ],
            rows: tsv, options: options)
        var md = [Self.heading, ""]
        md.append(
            "Date: \(machine.date). Command: `\(options.commandLine)`. `booksd --dir F` on \(stores) files of "
                + "\(rows) rows (\(CoreReport.f(totalMB, 1)) MB in all); cold: saved histories removed (each store "
                + "creates its own), warm: restored; 3 starts each, medians; ready = from `posix_spawn` until the "
                + "socket answers `hello`; CPU = the daemon's user + system time when ready.")
        md.append("")
        md.append(
            "| start | stores | ready ms | all runs ms | target | CPU ms | stop ms | VmRSS MB | VmHWM MB | RSS limit MB "
                + "| inotify watches |")
        md.append("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
        for (name, s) in [("cold", cold), ("warm", warm)] {
            md.append(
                """
                | \(name) | \(stores) | \(CoreReport.ms(s.ready)) | \(s.runs.map { CoreReport.ms($0) }.joined(separator: ", ")) \
                | 1500 | \(CoreReport.ms(s.cpu)) | \(CoreReport.ms(s.stop)) | \(CoreReport.f(s.rss, 1)) | \
                \(CoreReport.f(s.hwm, 1)) | \(CoreReport.f(rssLimit, 1)) | \
                \(s.watches.map(String.init).joined(separator: ", ")) (folder + wake pipe) |
                """
            )
        }
        md.append("")
        if let latency { md += StoresLatencyReport.markdown(latency, stores: stores, rows: rows, options: options) }
        ResultsFile.publish(heading: Self.heading, markdown: md.joined(separator: "\n"), options: options)
    }

    /// Three starts of `booksd --dir folder`; cold ones first remove the saved histories.
    func measure(directory: String, folder: String, warm: Bool) -> Sample {
        var ready: [Double] = []
        var cpu: [Double] = []
        var stop: [Double] = []
        var rss: [Double] = []
        var hwm: [Double] = []
        var sample = Sample()
        for k in 0..<3 {
            Console.error("• stores: \(stores) × \(rows) rows, \(warm ? "warm" : "cold") run \(k + 1)/3")
            if !warm {
                for name in TestFiles.names(in: folder) where name.hasPrefix(".") {
                    TestFiles.removeTree(folder + "/" + name)
                }
            }
            var daemonOptions = DaemonOptions(socket: directory + "/booksd.sock", logPath: directory + "/booksd.log")
            daemonOptions.executable = "\(options.binDirectory)/booksd"
            daemonOptions.extraArguments = ["--dir", folder]
            daemonOptions.environment = ChildEnvironment.current()
            guard let daemon = try? DaemonProcess(daemonOptions, waitReady: false),
                (try? daemon.waitUntilReady(timeout: 120, interval: 0.001)) != nil
            else {
                Console.error("booksd did not start; see \(directory)/booksd.log")
                exit(1)
            }
            ready.append(daemon.readyMS)
            cpu.append(daemon.cpuMS)
            rss.append(Double(daemon.rssKB) / 1024)
            hwm.append(Double(ProcStatus.kB("VmHWM", pid: daemon.pid)) / 1024)
            sample.watches.append(Self.inotifyWatches(pid: daemon.pid))
            // The edit-latency part (StoresLatency) runs after these starts, with its own daemons.
            stop.append(Stopwatch.milliseconds { _ = daemon.stop() })
        }
        sample.runs = ready
        sample.ready = Stopwatch.median(ready)
        sample.cpu = Stopwatch.median(cpu)
        sample.stop = Stopwatch.median(stop)
        sample.rss = Stopwatch.median(rss)
        sample.hwm = Stopwatch.median(hwm)
        Console.error(
            "  ready \(ready.map { CoreReport.ms($0) }) ms, CPU \(cpu.map { CoreReport.ms($0) }) ms, VmRSS \(rss) MB, "
                + "watches \(sample.watches), stop \(stop.map { CoreReport.ms($0) }) ms")
        return sample
    }

    /// Watches held by the inotify descriptors of process `pid`.
    static func inotifyWatches(pid: pid_t) -> Int {
        var count = 0
        for name in TestFiles.names(in: "/proc/\(pid)/fd") {
            var target = [CChar](repeating: 0, count: 256)
            let n = readlink("/proc/\(pid)/fd/\(name)", &target, target.count - 1)
            guard n > 0,
                String(decoding: target[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self).contains("inotify")
            else { continue }
            let info = TestFiles.readText("/proc/\(pid)/fdinfo/\(name)") ?? ""
            count += info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
        }
        return count
    }
}
