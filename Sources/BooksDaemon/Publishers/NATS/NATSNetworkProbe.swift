import Glibc

/// Whether booksd may use the network at all, for the log line of a NATS server it cannot reach:
/// the packaged systemd units allow only `AF_UNIX` (and no IP address), so a NATS URL fails
/// there whatever the server does.
enum NATSNetworkProbe {
    /// Why IP sockets are refused to this process (nil: they are not), naming the drop-in that
    /// opens them. Opens and closes one socket; never connects.
    static func blockedHint() -> String? {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        if descriptor >= 0 {
            close(descriptor)
            return nil
        }
        return hint(errno: errno)
    }

    /// The hint for the error an `AF_INET` socket failed with (nil for one that is not about permission). Pure.
    static func hint(errno code: Int32) -> String? {
        guard [EAFNOSUPPORT, EPERM, EACCES, ENETUNREACH].contains(code) else { return nil }
        return """
            this process may not open network sockets (\(String(cString: strerror(code)))): the packaged \
            booksd.service allows only AF_UNIX; enable the NATS drop-in: install -D -m 0644 \
            /usr/share/booksd/booksd-nats.conf /etc/systemd/system/booksd.service.d/nats.conf, set its \
            IPAddressAllow= to the NATS server, systemctl daemon-reload, restart booksd (docs/SCALE-OUT.md)
            """
    }
}
