import Glibc

/// Resolves user and group names to IDs. `system` uses the NSS database (`getpwnam_r`/`getgrnam_r`);
/// tests inject fixed tables.
public struct AccountResolver: Sendable {
    /// Returns the UID of a user name, or nil if there is no such user.
    public var userID: @Sendable (String) -> uid_t?
    /// Returns the GID of a group name, or nil if there is no such group.
    public var groupID: @Sendable (String) -> gid_t?

    /// Creates a resolver from two lookup functions.
    public init(userID: @escaping @Sendable (String) -> uid_t?, groupID: @escaping @Sendable (String) -> gid_t?) {
        self.userID = userID
        self.groupID = groupID
    }

    /// Looks names up in the system user and group databases (thread-safe `_r` variants).
    public static let system = AccountResolver(
        userID: { name in
            var pw = passwd()
            var result: UnsafeMutablePointer<passwd>? = nil
            var buffer = [CChar](repeating: 0, count: 16 * 1024)
            let rc = getpwnam_r(name, &pw, &buffer, buffer.count, &result)
            return rc == 0 && result != nil ? pw.pw_uid : nil
        },
        groupID: { name in
            var gr = group()
            var result: UnsafeMutablePointer<group>? = nil
            var buffer = [CChar](repeating: 0, count: 64 * 1024)
            let rc = getgrnam_r(name, &gr, &buffer, buffer.count, &result)
            return rc == 0 && result != nil ? gr.gr_gid : nil
        })
}
