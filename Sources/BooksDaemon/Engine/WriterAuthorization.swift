import BooksPlatform
import Glibc

/// Who may write: root, the daemon's own user, and the configured writer uids and groups (a peer
/// is in a group when it is its primary group or one of its user's supplementary groups).
///
/// Supplementary groups are looked up once per uid and cached until `forgetGroups()` (called on
/// every configuration reload, SIGHUP), so a change to /etc/group takes effect on reload.
final class WriterAuthorization: Sendable {
    private let groupCache = Locked<[UInt32: [gid_t]]>([:])
    private let lookup: @Sendable (_ uid: UInt32, _ primary: gid_t) -> [gid_t]

    /// Creates the check; `lookup` finds a user's groups (the system's user database by default).
    init(lookup: @escaping @Sendable (_ uid: UInt32, _ primary: gid_t) -> [gid_t] = WriterAuthorization.systemGroups) {
        self.lookup = lookup
    }

    func mayWrite(_ peer: PeerCredentials, uids: [uid_t], groups: [gid_t]) -> Bool {
        if peer.uid == 0 || peer.uid == geteuid() || uids.contains(peer.uid) { return true }
        guard !groups.isEmpty else { return false }
        if groups.contains(peer.gid) { return true }
        return supplementaryGroups(of: peer.uid, primary: peer.gid).contains(where: groups.contains)
    }

    /// Drops every cached group list; the next check of each uid looks its groups up again.
    func forgetGroups() {
        groupCache.withLock { $0.removeAll() }
    }

    private func supplementaryGroups(of uid: UInt32, primary: gid_t) -> [gid_t] {
        if let cached = groupCache.withLock({ $0[uid] }) { return cached }
        let result = lookup(uid, primary)
        groupCache.withLock { $0[uid] = result }
        return result
    }

    /// The groups of `uid`'s user from the system's user database (empty when unknown).
    static func systemGroups(of uid: UInt32, primary: gid_t) -> [gid_t] {
        var pwd = passwd()
        var buffer = [CChar](repeating: 0, count: 4096)
        var found: UnsafeMutablePointer<passwd>?
        guard getpwuid_r(uid, &pwd, &buffer, buffer.count, &found) == 0, found != nil, let name = pwd.pw_name else {
            return []
        }
        var count: Int32 = 64
        var list = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primary, &list, &count) < 0 {
            list = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, primary, &list, &count)
        }
        return Array(list.prefix(Int(max(count, 0))))
    }
}
