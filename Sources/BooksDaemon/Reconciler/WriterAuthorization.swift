import Glibc
import Synchronization

/// Who may write: root, the daemon's own user, and the configured writer uids and groups (a peer
/// is in a group when it is its primary group or one of its user's supplementary groups).
final class WriterAuthorization: Sendable {
    private let groupCache = Mutex<[UInt32: [gid_t]]>([:])

    func mayWrite(_ peer: PeerCredentials, uids: [uid_t], groups: [gid_t]) -> Bool {
        if peer.uid == 0 || peer.uid == geteuid() || uids.contains(peer.uid) { return true }
        guard !groups.isEmpty else { return false }
        if groups.contains(peer.gid) { return true }
        return supplementaryGroups(of: peer.uid, primary: peer.gid).contains(where: groups.contains)
    }

    private func supplementaryGroups(of uid: UInt32, primary: gid_t) -> [gid_t] {
        if let cached = groupCache.withLock({ $0[uid] }) { return cached }
        var result: [gid_t] = []
        var pwd = passwd()
        var buffer = [CChar](repeating: 0, count: 4096)
        var found: UnsafeMutablePointer<passwd>?
        if getpwuid_r(uid, &pwd, &buffer, buffer.count, &found) == 0, found != nil, let name = pwd.pw_name {
            var count: Int32 = 64
            var list = [gid_t](repeating: 0, count: Int(count))
            if getgrouplist(name, primary, &list, &count) < 0 {
                list = [gid_t](repeating: 0, count: Int(count))
                _ = getgrouplist(name, primary, &list, &count)
            }
            result = Array(list.prefix(Int(max(count, 0))))
        }
        groupCache.withLock { $0[uid] = result }
        return result
    }
}
