/// The version-2 store descriptions, written in `StoreInfo`'s synthesized `Codable` shape.
extension JSONWriter {
    mutating func storeInfo(_ info: StoreInfo) {
        object { w, first in
            w.member("name", info.name, first: &first)
            w.member("path", info.path, first: &first)
            w.member("format", info.format, first: &first)
            w.member("state", info.state, first: &first)
            w.member("problem", ifPresent: info.problem, first: &first)
            w.member("bookCount", info.bookCount, first: &first)
            w.member("badLines", info.badLines, first: &first)
            w.member("epoch", info.epoch, first: &first)
            w.member("seq", info.seq, first: &first)
            w.member("historyOldestSeq", ifPresent: info.historyOldestSeq, first: &first)
            w.member("historyOldestTime", ifPresent: info.historyOldestTime, first: &first)
        }
    }

    mutating func storeInfos(_ infos: [StoreInfo]) { array(infos) { $0.storeInfo($1) } }
}
