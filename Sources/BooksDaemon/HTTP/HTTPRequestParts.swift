import BooksHTTP
import CMicroHTTPD
import FoundationEssentials
import Glibc

/// The small libmicrohttpd calls of the shell: reading a request head, queueing a response, and
/// the reader callbacks of streamed bodies. Called on a daemon's thread only.
enum HTTPRequestParts {
    /// The head of the request on `connection`: its headers and query arguments as the library
    /// parsed (and percent-decoded) them.
    static func head(_ connection: OpaquePointer, method: String, path: String) -> HTTPRequestHead {
        HTTPRequestHead(
            method: method, path: path, query: values(connection, MHD_ValueKind.GET_ARGUMENT_KIND),
            headers: values(connection, MHD_ValueKind.HEADER_KIND), receivedAt: Date())
    }

    private static func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [String: String] {
        var values: [String: String] = [:]
        withUnsafeMutablePointer(to: &values) { pointer in
            _ = MHD_get_connection_values(
                connection, kind,
                { cls, _, key, value in
                    guard let cls, let key else { return MHD_Result.YES }
                    let values = cls.assumingMemoryBound(to: [String: String].self)
                    values.pointee[String(cString: key)] = value.map { String(cString: $0) } ?? ""
                    return MHD_Result.YES
                }, pointer)
        }
        return values
    }

    /// Queues `response` (the body copied; the library sends none to `HEAD`).
    static func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made = response.body.withUnsafeBytes { bytes in
            booksd_mhd_response_copy(bytes.count, bytes.baseAddress)
        }
        guard let made else { return MHD_Result.NO }
        defer { MHD_destroy_response(made) }
        for header in response.headers + standardHeaders {
            _ = MHD_add_response_header(made, header.name, header.value)
        }
        return MHD_queue_response(connection, UInt32(response.status), made)
    }

    /// Headers on every response: no caching of live data, no sniffing, no framing by others.
    static let standardHeaders = [
        HTTPHeader("Cache-Control", "no-store"), HTTPHeader("X-Content-Type-Options", "nosniff"),
        HTTPHeader("X-Frame-Options", "DENY"),
    ]

    /// Queues a 200 whose body `reader` produces (chunked), holding `exchange` until the library
    /// frees the response.
    static func queueStream(
        _ exchange: HTTPExchange, on connection: OpaquePointer, contentType: String,
        reader: MHD_ContentReaderCallback
    ) -> MHD_Result {
        let retained = Unmanaged.passRetained(exchange).toOpaque()
        guard
            let made = MHD_create_response_from_callback(
                booksd_mhd_size_unknown(), 16 * 1024, reader, retained,
                { cls in if let cls { Unmanaged<HTTPExchange>.fromOpaque(cls).release() } })
        else {
            Unmanaged<HTTPExchange>.fromOpaque(retained).release()
            return MHD_Result.NO
        }
        defer { MHD_destroy_response(made) }
        _ = MHD_add_response_header(made, "Content-Type", contentType)
        if contentType == "text/event-stream" { _ = MHD_add_response_header(made, "X-Accel-Buffering", "no") }
        for header in standardHeaders { _ = MHD_add_response_header(made, header.name, header.value) }
        return MHD_queue_response(connection, 200, made)
    }

    static let listReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return booksd_mhd_end_with_error() }
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(cls).takeUnretainedValue()
        return exchange.readList(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
    }

    static let eventReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return booksd_mhd_end_with_error() }
        let exchange = Unmanaged<HTTPExchange>.fromOpaque(cls).takeUnretainedValue()
        return exchange.readEvents(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
    }
}
