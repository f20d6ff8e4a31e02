import BooksProtocol

/// The answer of `GET …/changes?feed=longpoll`: the change sets after the resume point (the
/// socket's event lines, as SSE's `data:`), or none when the wait ran out, and the position to
/// ask from next: `{"changes":[…],"last":"EPOCH:SEQ"}`. Pure.
public enum LongPollBody {
    /// The response for `events` (`change` and `resync-required` events; others are left out),
    /// or for none at `(epoch, seq)`.
    public static func response(_ events: [Event], epoch: String, seq: UInt64) -> HTTPResponse {
        let kept = events.filter { $0.event == .change || $0.event == .resyncRequired }
        var last = (epoch: epoch, seq: seq)
        if let final = kept.last { last = (final.epoch, final.seq) }
        return response(kept, last: EventID.format(epoch: last.epoch, seq: last.seq))
    }

    /// The response for `events` (of several stores: each names its store) and `last`, the
    /// position to ask from next (a `StoresEventID`).
    public static func response(_ events: [Event], last: String) -> HTTPResponse {
        let kept = events.filter { $0.event == .change || $0.event == .resyncRequired }
        var body = Array("{\"changes\":".utf8)
        appendArray(of: kept, to: &body)
        body += Array(",\"last\":\"\(last)\"}\n".utf8)
        return .json(200, body)
    }

    /// Appends `[…]` of `events`, each the socket's event line.
    static func appendArray(of events: [Event], to body: inout [UInt8]) {
        body.append(UInt8(ascii: "["))
        for (index, event) in events.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            var line = MessageEncoder.encode(event)
            if line.last == UInt8(ascii: "\n") { line.removeLast() }
            body += line
        }
        body.append(UInt8(ascii: "]"))
    }

    /// How long a long poll waits for a change without `timeout=` (seconds).
    public static let defaultTimeoutSeconds = 25
}
