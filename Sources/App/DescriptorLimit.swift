import Glibc

/// The process's limit on open files. nginx may keep many FastCGI connections open, plus the
/// upstream connections and the database: the soft limit (often 1024) is raised to the hard
/// one, as servers commonly do at start.
enum DescriptorLimit {
    /// Raises the soft limit to the hard limit; returns the limit in force afterwards.
    @discardableResult
    static func raiseToMaximum() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return UInt64(raised.rlim_cur) }
        }
        return UInt64(limit.rlim_cur)
    }
}
