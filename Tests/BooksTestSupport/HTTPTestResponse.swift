/// An HTTP response as `HTTPTestClient` parsed it.
public struct HTTPTestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers, names lowercased.
    public var headers: [String: String]
    /// The body (de-chunked).
    public var body: [UInt8]

    /// The body as text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Where the head ends (the index of `\r\n\r\n`), or nil.
    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4)
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    static func parseHead(_ bytes: [UInt8]) -> HTTPTestResponse {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first.flatMap { Int($0) } } ?? 0
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: " ")
        }
        return HTTPTestResponse(status: status, headers: headers, body: [])
    }

    /// A complete response at the start of `bytes` and the bytes it used, or nil.
    static func parse(_ bytes: [UInt8], complete: Bool) -> (HTTPTestResponse, Int)? {
        guard let end = headEnd(bytes) else { return nil }
        var response = parseHead(Array(bytes[0..<end]))
        var position = end + 4
        if response.headers["transfer-encoding"]?.lowercased() == "chunked" {
            var body: [UInt8] = []
            while true {
                guard let (data, used) = chunk(bytes[position...]) else { return nil }
                position += used
                if data.isEmpty { break }
                body += data
            }
            response.body = body
        } else if let length = response.headers["content-length"].flatMap({ Int($0) }) {
            guard bytes.count >= position + length else { return nil }
            response.body = Array(bytes[position..<(position + length)])
            position += length
        } else if response.status == 204 || response.status == 304 {
            response.body = []
        } else {
            guard complete else { return nil }
            response.body = Array(bytes[position...])
            position = bytes.count
        }
        return (response, position)
    }

    /// One chunk of a chunked body at the start of `bytes` (empty for the last) and the bytes it used.
    static func chunk(_ bytes: ArraySlice<UInt8>) -> ([UInt8], Int)? {
        let base = bytes.startIndex
        guard let lineEnd = bytes.indices.dropLast().first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 })
        else { return nil }
        let sizeText = String(decoding: bytes[base..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
        guard let size = Int(sizeText.trimmingCharacters(in: " "), radix: 16) else { return nil }
        let start = lineEnd + 2
        if size == 0 {
            // The last chunk, then (no trailers) CRLF.
            guard bytes.endIndex >= start + 2 else { return nil }
            return ([], start + 2 - base)
        }
        guard bytes.endIndex >= start + size + 2 else { return nil }
        return (Array(bytes[start..<(start + size)]), start + size + 2 - base)
    }
}

/// One server-sent event.
public struct ServerSentEvent: Sendable, Hashable {
    /// `id:`.
    public var id: String?
    /// `event:` (default `message`).
    public var event: String
    /// `data:` lines joined with newlines.
    public var data: String

    /// The complete events in `text` (frames ended by a blank line; comment-only frames dropped).
    public static func parse(_ text: String) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        let frames = text.split(separator: "\n\n", omittingEmptySubsequences: false)
        for frame in frames.dropLast() {  // the last one is not complete yet
            var event = ServerSentEvent(id: nil, event: "message", data: "")
            var data: [String] = []
            for line in frame.split(separator: "\n", omittingEmptySubsequences: true) {
                if line.hasPrefix(":") { continue }
                if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                if line.hasPrefix("event: ") { event.event = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
            }
            guard !data.isEmpty else { continue }
            event.data = data.joined(separator: "\n")
            events.append(event)
        }
        return events
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s = s.dropFirst() }
        while let c = s.last, set.contains(c) { s = s.dropLast() }
        return String(s)
    }
}
