/// The version-2 store descriptions (`stores` reply), read as `JSONDecoder` reads `StoreInfo`.
extension FastMessageDecoder {
    static func storeInfos(_ s: inout JSONScanner) -> [StoreInfo]? { list(&s, storeInfo) }

    static func storeInfo(_ s: inout JSONScanner) -> StoreInfo? {
        var name: String?
        var path: String?
        var format: String?
        var state: String?
        var problem: String?
        var bookCount: Int?
        var badLines: Int?
        var epoch: String?
        var seq: UInt64?
        var oldestSeq: UInt64?
        var oldestTime: String?
        var seen = KeySet()
        let ok = s.object { s, key in
            guard seen.insert(key) else { return false }
            switch key {
            case "name": name = s.string()
            case "path": path = s.string()
            case "format": format = s.string()
            case "state": state = s.string()
            case "problem": return optional(&s, &problem) { $0.string() }
            case "bookCount": bookCount = s.signed()
            case "badLines": badLines = s.signed()
            case "epoch": epoch = s.string()
            case "seq": seq = s.unsigned()
            case "historyOldestSeq": return optional(&s, &oldestSeq) { $0.unsigned() }
            case "historyOldestTime": return optional(&s, &oldestTime) { $0.string() }
            default: return s.skipValue()
            }
            return true
        }
        guard ok, let name, let path, let format, let state, let bookCount, let badLines, let epoch, let seq else {
            return nil
        }
        return StoreInfo(
            name: name, path: path, format: format, state: state, problem: problem, bookCount: bookCount,
            badLines: badLines, epoch: epoch, seq: seq, historyOldestSeq: oldestSeq, historyOldestTime: oldestTime)
    }
}
