import BooksCore
import FoundationEssentials

/// The bytes BookSync puts into NATS. Pure.
///
/// - A change set: the socket protocol's `change` event line (`MessageEncoder`), with `"store"`
///   as its first member, without the trailing newline.
/// - A snapshot marker: `{"store","event":"snapshot","epoch","seq","time","count":N,"bucket"}`,
///   published when the stream cannot be continued change by change (first start, a restarted
///   engine, a change log that no longer reaches back): the bucket holds the books at `seq`.
/// - A bucket value: `{"id","name","author","version"}`.
package enum NATSPayload {
    /// The stream message of `change` for `store`.
    package static func change(_ change: SequencedChangeSet, store: String) -> [UInt8] {
        guard let event = MessageEncoder.changeEvent(change) else { return [] }
        return withStore(MessageEncoder.encode(event), store: store)
    }

    /// The snapshot marker for the books at `seq`.
    package static func snapshotMarker(
        store: String, epoch: String, seq: UInt64, books: Int, bucket: String
    ) -> [UInt8] {
        var out: [UInt8] = []
        out += Array("{\"store\":".utf8)
        JSONText.appendString(store, to: &out)
        out += Array(",\"event\":\"snapshot\",\"epoch\":".utf8)
        JSONText.appendString(epoch, to: &out)
        out += Array(",\"seq\":\(seq),\"time\":".utf8)
        JSONText.appendString(ISO8601.format(Date()), to: &out)
        out += Array(",\"count\":\(books),\"bucket\":".utf8)
        JSONText.appendString(bucket, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The bucket value of `book` at `version`.
    package static func bucketValue(_ book: Book, version: UInt64) -> [UInt8] {
        var out: [UInt8] = Array("{\"id\":".utf8)
        JSONText.appendString(book.id, to: &out)
        out += Array(",\"name\":".utf8)
        JSONText.appendString(book.name, to: &out)
        out += Array(",\"author\":".utf8)
        JSONText.appendString(book.author, to: &out)
        out += Array(",\"version\":\(version)}".utf8)
        return out
    }

    /// `line` (a JSON object ending in a newline) with `"store":…` as its first member.
    package static func withStore(_ line: [UInt8], store: String) -> [UInt8] {
        var out: [UInt8] = Array("{\"store\":".utf8)
        JSONText.appendString(store, to: &out)
        out.append(UInt8(ascii: ","))
        var body = line.dropFirst()
        if body.last == UInt8(ascii: "\n") { body = body.dropLast() }
        out += body
        return out
    }
}
