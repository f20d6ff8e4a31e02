import Glibc

/// Where and when the benchmark ran.
struct MachineInfo: Sendable {
    var processors: Int
    var cpuModel: String
    var kernel: String
    var date: String

    static func current() -> MachineInfo {
        let cpuinfo = (try? FileBytes.readStream("/proc/cpuinfo")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let model =
            cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { String($0.drop { $0 == " " || $0 == "\t" }) } ?? "unknown"
        let kernel =
            (try? FileBytes.readStream("/proc/sys/kernel/osrelease"))
            .map { String(decoding: $0, as: UTF8.self).filter { $0 != "\n" } } ?? "unknown"
        return MachineInfo(
            processors: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), cpuModel: model,
            kernel: "Linux " + kernel, date: utcNow())
    }

    private static func utcNow() -> String {
        var now = time(nil)
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let n = strftime(&buffer, buffer.count, "%Y-%m-%d %H:%M UTC", &parts)
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
