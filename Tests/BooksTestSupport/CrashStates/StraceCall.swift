/// One completed system call from `strace -f -y -v -xx` output: its name, its top-level
/// arguments as printed, and its result as printed. Pure parsing, no I/O.
public struct StraceCall: Sendable, Hashable {
    /// The thread that made it.
    public var pid: Int
    /// `openat`, `write`, …
    public var name: String
    /// The top-level arguments, as printed (`AT_FDCWD<\x2f…>`, `"\x61…"`, `O_RDWR|O_CREAT`, `{…}`).
    public var arguments: [String]
    /// The result as printed (`3<\x2f…>`, `0`, `-1 ENOENT (No such file or directory)`).
    public var result: String

    /// The result's leading integer (a descriptor, a byte count), nil when it is not a number.
    public var returnValue: Int? {
        Int(result.prefix { $0 == "-" || $0.isNumber })
    }

    /// Whether the call succeeded (a non-negative result).
    public var succeeded: Bool { (returnValue ?? -1) >= 0 }
}
