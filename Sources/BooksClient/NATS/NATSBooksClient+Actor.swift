import BooksCore
import BooksNATS
import BooksPlatform
import Glibc

extension NATSBooksClient {
    /// Who this process is, as a NATS client declares it: its real uid and that user's name,
    /// its pid, its program (`/proc/self/comm`), the host name, and the NATS user of `options`
    /// (the user name of user/password authentication, else the credentials file's name).
    public static func declaredActor(options: NATSConnectOptions) -> ChangeActor {
        let uid = UInt32(getuid())
        let pid = getpid()
        let credentials = options.credentialsFile.map { path in
            path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        }
        return ChangeActor(
            uid: uid, user: ProcessIdentity.userName(of: uid), pid: pid,
            program: ProcessIdentity.processName(pid: pid), host: ProcessIdentity.hostName(),
            natsUser: options.user ?? credentials)
    }
}
