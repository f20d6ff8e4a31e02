extension BooksClient {
    /// The socket to use when none is given, found by the one rule that `booksctl` also uses
    /// (`SocketPathResolver`): `explicit` if non-empty; else `$BOOKS_SOCKET`; else
    /// `$XDG_RUNTIME_DIR/booksd.sock` if it exists; else a trusted `./.booksd.sock`; else
    /// `/run/booksd/booksd.sock`. `warning` says why an untrusted `./.booksd.sock` was passed over.
    public static func defaultSocketPath(
        explicit: String? = nil
    ) -> (path: String, origin: SocketPathResolver.Origin, warning: String?) {
        SocketPathResolver().resolveWithWarning(explicit: explicit)
    }

    /// Connects to the socket `defaultSocketPath()` finds (see `connect(socketPath:clientName:maxLineLength:)`).
    public static func connect(
        clientName: String = "BooksClient", maxLineLength: Int = BooksClient.defaultMaxLineLength
    ) async throws(BooksClientError) -> BooksClient {
        try await connect(socketPath: defaultSocketPath().path, clientName: clientName, maxLineLength: maxLineLength)
    }
}
