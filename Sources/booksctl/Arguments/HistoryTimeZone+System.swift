import BooksProtocol
import Glibc

extension HistoryTimeZone {
    /// The system's local time zone (`TZ`, else /etc/localtime), as `localtime_r` reports it.
    static let system = HistoryTimeZone { seconds in
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int64(parts.tm_gmtoff)
    }
}
