import BooksTestSupport
import Glibc

/// `BooksBenchmarks stores`: many stores in one watched folder (issue 13): 1,000 files of 1,000
/// rows (`--quick`: 100) in one `--dir`, 3 cold starts (saved histories removed). Per start:
/// exec → ready (socket answers `hello`), VmRSS and VmHWM once ready, and the inotify watches
/// the daemon holds (lines `inotify wd:` in `/proc/PID/fdinfo` of its inotify descriptor).
/// Targets: ready ≤ 1.5 s; VmRSS ≤ 2 × total file size + 32 MB; watches: one for the folder
/// (the hub also watches its own wake-up pipe: 2 lines expected).
struct StoresBenchmark {
    static let heading = "## Live: many stores in one watched folder"

    let options: LiveOptions
    var stores: Int { options.quick ? 100 : 1_000 }
    let rows = 1_000

    init(options: LiveOptions) { self.options = options }

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
        var ready: [Double] = []
        var rss: [Double] = []
        var hwm: [Double] = []
        var watches: [Int] = []
        for k in 0..<3 {
            Console.error("• stores: \(stores) × \(rows) rows, run \(k + 1)/3")
            for name in TestFiles.names(in: folder) where name.hasPrefix(".") {
                TestFiles.removeTree(folder + "/" + name)
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
            rss.append(Double(daemon.rssKB) / 1024)
            hwm.append(Double(ProcStatus.kB("VmHWM", pid: daemon.pid)) / 1024)
            watches.append(Self.inotifyWatches(pid: daemon.pid))
            // The edit-latency part (StoresLatency) runs after these starts, with its own daemons.
            daemon.stop()
        }
        let latency = StoresLatency(options: options, directory: directory).run(folder: folder, storeCount: stores)
        let totalMB = Double(totalBytes) / 1_048_576
        let rssLimit = 2 * totalMB + 32
        let readyMedian = Stopwatch.median(ready)
        let rssMedian = Stopwatch.median(rss)
        let hwmMedian = Stopwatch.median(hwm)
        Console.error("  ready \(ready.map { CoreReport.ms($0) }) ms, VmRSS \(rss) MB, watches \(watches)")
        ResultsFile.write(
            "stores",
            header: ["stores", "rows", "total_mb", "ready_ms_median", "rss_mb", "hwm_mb", "rss_limit_mb", "watches"],
            rows: [
                [
                    String(stores), String(rows), String(totalMB), String(readyMedian), String(rssMedian),
                    String(hwmMedian), String(rssLimit), watches.map(String.init).joined(separator: ","),
                ]
            ],
            options: options)
        var md = [Self.heading, ""]
        md.append(
            "Date: \(machine.date). Command: `\(options.commandLine)`. `booksd --dir F` on \(stores) files of "
                + "\(rows) rows (\(CoreReport.f(totalMB, 1)) MB in all), cold (saved histories removed), 3 starts; "
                + "ready = from `posix_spawn` until the socket answers `hello`.")
        md.append("")
        md.append("| stores | ready ms (median) | target | VmRSS MB | VmHWM MB | RSS limit MB | inotify watches |")
        md.append("|---:|---:|---:|---:|---:|---:|---|")
        md.append(
            """
            | \(stores) | \(CoreReport.ms(readyMedian)) | 1500 | \(CoreReport.f(rssMedian, 1)) | \
            \(CoreReport.f(hwmMedian, 1)) | \(CoreReport.f(rssLimit, 1)) | \
            \(watches.map(String.init).joined(separator: ", ")) (folder + wake pipe) |
            """
        )
        md.append("")
        if let latency { md += StoresLatencyReport.markdown(latency, stores: stores, rows: rows, options: options) }
        ResultsFile.publish(heading: Self.heading, markdown: md.joined(separator: "\n"), options: options)
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
