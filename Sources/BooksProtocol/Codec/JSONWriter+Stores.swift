/// The version-2 store descriptions, written in `StoreInfo`'s synthesized `Codable` shape.
extension JSONWriter {
    mutating func storeInfo(_ info: StoreInfo) {
        var first = true
        raw(UInt8(ascii: "{"))
        key("name", first: &first)
        string(info.name)
        key("path", first: &first)
        string(info.path)
        key("format", first: &first)
        string(info.format)
        key("state", first: &first)
        string(info.state)
        if let problem = info.problem {
            key("problem", first: &first)
            string(problem)
        }
        key("bookCount", first: &first)
        signed(info.bookCount)
        key("badLines", first: &first)
        signed(info.badLines)
        key("epoch", first: &first)
        string(info.epoch)
        key("seq", first: &first)
        unsigned(info.seq)
        if let oldest = info.historyOldestSeq {
            key("historyOldestSeq", first: &first)
            unsigned(oldest)
        }
        if let time = info.historyOldestTime {
            key("historyOldestTime", first: &first)
            string(time)
        }
        raw(UInt8(ascii: "}"))
    }

    mutating func storeInfos(_ infos: [StoreInfo]) {
        raw(UInt8(ascii: "["))
        var first = true
        for info in infos {
            if first { first = false } else { raw(UInt8(ascii: ",")) }
            storeInfo(info)
        }
        raw(UInt8(ascii: "]"))
    }
}
