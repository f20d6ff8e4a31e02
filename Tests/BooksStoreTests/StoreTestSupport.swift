/// The bytes of a file with `rows`, each ended by `\n`.
func lines(_ rows: [String]) -> [UInt8] { Array(rows.map { $0 + "\n" }.joined().utf8) }
