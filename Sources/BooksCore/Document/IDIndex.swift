import CBooksSupport

/// An open-addressing hash index from book id (bytes in the document) to line index.
///
/// Each slot packs a 32-bit hash of the id and `line + 1` (0 = empty), so lookups compare bytes
/// only on a full hash match and the index costs 8 bytes a slot (about 16 MB at 1M books).
/// Linear probing with backward-shift deletion: no tombstones, lookups stay short after edits.
struct IDIndex: Sendable {
    private(set) var slots: [UInt64]
    private(set) var count = 0
    private var mask: Int

    init(expectedCount: Int) {
        var capacity = 16
        while capacity * 7 / 10 < expectedCount { capacity <<= 1 }
        slots = [UInt64](repeating: 0, count: capacity)
        mask = capacity - 1
    }

    @inline(__always)
    static func hash(_ base: UnsafePointer<UInt8>, _ start: Int, _ length: Int) -> UInt32 {
        var h: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(length)
        var i = start
        let end = start + length
        while i + 8 <= end {
            let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            h = (h ^ word) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while i < end {
            tail |= UInt64(base[i]) << shift
            shift += 8
            i += 1
        }
        h = (h ^ tail) &* 0xC4CE_B9FE_1A85_EC53
        h ^= h >> 29
        return UInt32(truncatingIfNeeded: h)
    }

    /// Asks the CPU to load the slot for `hash` ahead of a lookup (the index is larger than the
    /// caches; one miss per row dominates a parse without it).
    @inline(__always)
    func prefetch(_ hash: UInt32) {
        slots.withUnsafeBufferPointer { books_prefetch($0.baseAddress! + (Int(hash) & mask)) }
    }

    /// The line index stored for `hash` whose id `matches`, if any.
    @inline(__always)
    func find(_ hash: UInt32, matches: (Int) -> Bool) -> Int? {
        var i = Int(hash) & mask
        while true {
            let slot = slots[i]
            if slot == 0 { return nil }
            if UInt32(truncatingIfNeeded: slot >> 32) == hash {
                let line = Int(slot & 0xFFFF_FFFF) - 1
                if matches(line) { return line }
            }
            i = (i + 1) & mask
        }
    }

    /// Inserts an entry; the id must not be present already.
    mutating func insert(_ hash: UInt32, line: Int) {
        if (count + 1) * 10 > slots.count * 7 { grow() }
        var i = Int(hash) & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = UInt64(hash) << 32 | UInt64(line + 1)
        count += 1
    }

    /// Removes the entry for `hash` whose id `matches`; returns whether one was found.
    @discardableResult
    mutating func remove(_ hash: UInt32, matches: (Int) -> Bool) -> Bool {
        var i = Int(hash) & mask
        while true {
            let slot = slots[i]
            if slot == 0 { return false }
            if UInt32(truncatingIfNeeded: slot >> 32) == hash, matches(Int(slot & 0xFFFF_FFFF) - 1) { break }
            i = (i + 1) & mask
        }
        slots[i] = 0
        count -= 1
        var hole = i
        var j = (i + 1) & mask
        while slots[j] != 0 {
            let home = Int(UInt32(truncatingIfNeeded: slots[j] >> 32)) & mask
            // Move slots[j] into the hole when its home is not cyclically in (hole, j].
            let distanceToJ = (j - home) & mask
            let distanceToHole = (hole - home) & mask
            if distanceToHole < distanceToJ {
                slots[hole] = slots[j]
                slots[j] = 0
                hole = j
            }
            j = (j + 1) & mask
        }
        return true
    }

    /// Adds `delta` to every stored line index `>= from` (after lines were inserted or removed).
    mutating func shiftLines(from: Int, by delta: Int) {
        guard delta != 0 else { return }
        // Branch-free (half the slots move, at random: a branch would mispredict on every other
        // slot): empty slots store line 0, below any threshold, and `line + 1 + delta` stays
        // positive, so adding `delta` to the whole word never borrows from the hash half.
        let threshold = UInt64(from + 1)
        let step = UInt64(bitPattern: Int64(delta))
        slots.withUnsafeMutableBufferPointer { buffer in
            for k in buffer.indices {
                let slot = buffer[k]
                buffer[k] = slot &+ ((slot & 0xFFFF_FFFF) >= threshold ? step : 0)
            }
        }
    }

    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count * 2)
        mask = slots.count - 1
        for slot in old where slot != 0 {
            var i = Int(UInt32(truncatingIfNeeded: slot >> 32)) & mask
            while slots[i] != 0 { i = (i + 1) & mask }
            slots[i] = slot
        }
    }
}
