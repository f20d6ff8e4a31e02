import BooksCore
import FoundationEssentials

/// The history's reply fields (`history`, `oldestSeq`, `blame`, `refused`): rare and small
/// (a page is bounded), written with `JSONEncoder`.
extension MessageEncoder {
    static func encodeHistory(_ result: ReplyResult, into w: inout JSONWriter, first: inout Bool) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Events, blame entries and conflicts hold strings, integers and booleans: encoding them
        // cannot fail.
        if let v = result.history, let data = try? encoder.encode(v) {
            w.key("history", first: &first)
            w.bytes.append(contentsOf: data)
        }
        if let v = result.oldestSeq {
            w.key("oldestSeq", first: &first)
            w.unsigned(v)
        }
        if let v = result.blame, let data = try? encoder.encode(v) {
            w.key("blame", first: &first)
            w.bytes.append(contentsOf: data)
        }
        if let v = result.refused {
            w.key("refused", first: &first)
            w.conflicts(v)
        }
    }
}
