import Glibc

/// The process's descriptor limit.
enum DescriptorLimit {
    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (children, booksd included, inherit it);
    /// returns the soft limit now in force.
    static func raise() -> UInt64 {
        var limit = rlimit()
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        guard getrlimit(resource, &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(resource, &limit)
        }
        return UInt64(limit.rlim_cur)
    }
}
