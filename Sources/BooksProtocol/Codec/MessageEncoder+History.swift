import BooksCore
import FoundationEssentials

/// The history's reply fields (`history`, `oldestSeq`, `blame`, `refused`): rare and small
/// (a page is bounded), written with `JSONEncoder`.
extension MessageEncoder {
    static func encodeHistory(_ result: ReplyResult, into w: inout JSONWriter, first: inout Bool) {
        // Events, blame entries and conflicts hold strings, integers and booleans: encoding them
        // cannot fail.
        w.encodedMember("history", ifPresent: result.history, first: &first)
        w.member("oldestSeq", ifPresent: result.oldestSeq, first: &first)
        w.encodedMember("blame", ifPresent: result.blame, first: &first)
        w.member("refused", ifPresent: result.refused, first: &first) { $0.conflicts($1) }
    }
}
