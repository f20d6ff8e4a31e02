import Glibc

extension SocketServer {
    /// Tests only: closes the listening socket but leaves the socket file behind, as a crashed
    /// daemon would.
    func abandonListenerForTesting() {
        withListener { fd, ownedPath in
            Glibc.close(fd)
            fd = -1
            ownedPath = nil
        }
    }

    /// Tests only: a duplicate of the listening fd, as socket activation would pass it.
    func duplicateListenerForTesting() -> Int32 {
        var copy: Int32 = -1
        withListener { fd, _ in copy = dup(fd) }
        return copy
    }
}
