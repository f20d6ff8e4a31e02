/// One file-system operation of a recorded write path, on the model's inodes (numbered from 1 in
/// the order the recording first met them), for the crash-state model (`CrashStateEnumerator`).
///
/// Names are paths relative to the recorded directory (`books.txt`, `state/journal`). Metadata
/// operations (`isMetadata`) go through the ext4 journal and persist in order; `write` is file
/// data; `sync`/`syncDirectory` are durability barriers; `output` is a reply a client may have
/// read (a socket send), used as the acknowledgement marker.
public enum FileOperation: Sendable, Hashable, CustomStringConvertible {
    /// A new empty regular file `inode` named `name` (an `open` with `O_CREAT` that created it).
    case create(name: String, inode: Int, mode: UInt32)
    /// A new directory.
    case makeDirectory(name: String)
    /// `name` now also names `inode` (`link`).
    case link(name: String, inode: Int)
    /// `from` moved to `to`, replacing what `to` named (`rename`).
    case rename(from: String, to: String)
    /// The two names swapped inodes (`renameat2(RENAME_EXCHANGE)`).
    case exchange(String, String)
    /// `name` removed (`unlink`).
    case unlink(name: String)
    /// `inode` cut (or extended with zeros) to `size` bytes (`ftruncate`, or `O_TRUNC` at open).
    case truncate(inode: Int, size: Int)
    /// Mode, owner or extended attributes of `inode` changed (`fchmod`, `fchown`, `fsetxattr`);
    /// `mode` is the new permission bits when the call set them.
    case setAttributes(inode: Int, mode: UInt32?)
    /// `bytes` written to `inode` at `offset` (`write`, `pwrite`; an `O_APPEND` write at the end).
    case write(inode: Int, offset: Int, bytes: [UInt8])
    /// `fsync` (`dataOnly` false) or `fdatasync` (`dataOnly` true) of `inode`.
    case sync(inode: Int, dataOnly: Bool)
    /// `fsync` of a directory: every earlier metadata operation is durable.
    case syncDirectory(name: String)
    /// Bytes sent on a socket (a reply a client may have read); `label` is what the recording's
    /// marker function made of them (e.g. the id of an acknowledged write), nil when nothing.
    case output(label: String?)

    /// Whether the operation is journaled metadata (persisted in order, as a prefix).
    public var isMetadata: Bool {
        switch self {
        case .create, .makeDirectory, .link, .rename, .exchange, .unlink, .truncate, .setAttributes: return true
        case .write, .sync, .syncDirectory, .output: return false
        }
    }

    public var description: String {
        switch self {
        case .create(let name, let inode, let mode): return "create \(name) #\(inode) mode \(String(mode, radix: 8))"
        case .makeDirectory(let name): return "mkdir \(name)"
        case .link(let name, let inode): return "link \(name) → #\(inode)"
        case .rename(let from, let to): return "rename \(from) → \(to)"
        case .exchange(let a, let b): return "exchange \(a) ⇄ \(b)"
        case .unlink(let name): return "unlink \(name)"
        case .truncate(let inode, let size): return "truncate #\(inode) to \(size)"
        case .setAttributes(let inode, let mode):
            return "setattr #\(inode)" + (mode.map { " mode \(String($0, radix: 8))" } ?? "")
        case .write(let inode, let offset, let bytes): return "write #\(inode) [\(offset), +\(bytes.count))"
        case .sync(let inode, let dataOnly): return (dataOnly ? "fdatasync" : "fsync") + " #\(inode)"
        case .syncDirectory(let name): return "fsync dir \(name.isEmpty ? "." : name)"
        case .output(let label): return "output" + (label.map { " (\($0))" } ?? "")
        }
    }
}
