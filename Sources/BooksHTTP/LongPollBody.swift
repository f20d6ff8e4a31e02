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
        var body = Array("{\"changes\":[".utf8)
        for (index, event) in kept.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            var line = MessageEncoder.encode(event)
            if line.last == UInt8(ascii: "\n") { line.removeLast() }
            body += line
        }
        body += Array("],\"last\":\"\(EventID.format(epoch: last.epoch, seq: last.seq))\"}\n".utf8)
        return .json(200, body)
    }

    /// How long a long poll waits for a change without `timeout=` (seconds).
    public static let defaultTimeoutSeconds = 25
}
