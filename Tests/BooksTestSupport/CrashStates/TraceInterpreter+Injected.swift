extension TraceInterpreter {
    /// Emits the operations of an edit made by another process.
    mutating func inject(_ edit: InjectedEdit) {
        switch edit {
        case .replace(let name, let bytes, let temporary):
            let inode = nextInode
            nextInode += 1
            emit(.create(name: temporary, inode: inode, mode: 0o644))
            emit(.write(inode: inode, offset: 0, bytes: bytes))
            emit(.rename(from: temporary, to: name))
        }
    }

    /// `mmap(addr, length, prot, flags, fd, offset) = address`: remembers a shared writable
    /// mapping of a recorded file.
    mutating func mapped(_ call: StraceCall) throws(StraceError) {
        let a = call.arguments
        guard a[2].contains("PROT_WRITE"), a[3].contains("MAP_SHARED"),
            let fd = try? StraceParser.descriptor(a[4]).fd, fd >= 0,
            let inode = try descriptor(a[4])?.inode, let address = Self.address(call.result)
        else { return }
        mappings[address] = inode
    }

    /// `msync(address, length, MS_SYNC)`: the mapped file's pages are written and synced (as
    /// `fdatasync`; what the stores put there is not known to the trace).
    mutating func msynced(_ call: StraceCall) {
        guard call.arguments[0] != "NULL", let address = Self.address(call.arguments[0]),
            let inode = mappings[address]
        else { return }
        emit(.sync(inode: inode, dataOnly: true))
    }

    /// `0x7f…` as a number.
    static func address(_ text: String) -> UInt64? {
        guard text.hasPrefix("0x") else { return nil }
        return UInt64(text.dropFirst(2).prefix { $0.isHexDigit }, radix: 16)
    }
}
