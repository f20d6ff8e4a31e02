import CBooksSupport

/// CRC-32C (Castagnoli), the checksum of every saved-history record and snapshot.
///
/// Guarantees: the same value on every machine (the SSE 4.2 instruction when the CPU has it, an
/// equivalent table otherwise); any single-bit flip and any burst of up to 32 bits changes it.
public enum CRC32C {
    private static let hardware = books_crc32c_hardware_available() != 0

    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }

    /// The checksum of `bytes`, continuing from `crc` (the checksum of the bytes before them).
    public static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        if hardware { return books_crc32c_hardware(crc, base, bytes.count) }
        return tableChecksum(bytes, continuing: crc)
    }

    /// The table-driven checksum (the fallback; tested against the hardware one).
    static func tableChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32) -> UInt32 {
        var c = ~crc
        table.withUnsafeBufferPointer { table in
            for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        }
        return ~c
    }

    /// The checksum of `bytes`, continuing from `crc`.
    public static func checksum(_ bytes: some Collection<UInt8>, continuing crc: UInt32 = 0) -> UInt32 {
        if let result = bytes.withContiguousStorageIfAvailable({ checksum(UnsafeRawBufferPointer($0), continuing: crc) }
        ) {
            return result
        }
        return Array(bytes).withUnsafeBytes { checksum($0, continuing: crc) }
    }
}
