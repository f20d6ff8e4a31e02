import BooksCore
import Glibc

/// The `core-rss FILE` child: reads and parses the file once, holds the document, and prints
/// `hwm_kb=`, `rss_kb=` (from /proc/self/status) and `baseline_kb=` (RSS before reading).
enum RSSProbe {
    static func run(path: String) {
        let baseline = statusKB("VmRSS")
        let document: BookDocument
        do {
            document = BookDocument(parsing: try FileBytes.read(path))
        } catch {
            Console.error("\(error)")
            exit(1)
        }
        Console.out("books=\(document.bookCount)")
        Console.out("baseline_kb=\(baseline)")
        Console.out("rss_kb=\(statusKB("VmRSS"))")
        Console.out("hwm_kb=\(statusKB("VmHWM"))")
        withExtendedLifetime(document) {}
    }

    /// A `kB` field of /proc/self/status (0 when unreadable).
    static func statusKB(_ field: String) -> Int {
        guard let bytes = try? FileBytes.readStream("/proc/self/status") else { return 0 }
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter { $0.isNumber }
            return Int(digits) ?? 0
        }
        return 0
    }
}
