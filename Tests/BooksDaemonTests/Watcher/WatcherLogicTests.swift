import BooksPlatform
import BooksTestSupport
import CInotifyTools
import Glibc
import Testing

@testable import BooksDaemon

/// Pure mapping logic: no kernel involved.
@Suite struct WatcherLogicTests {
    typealias C = InotifyEventClassifier
    let dirWD: Int32 = 2

    func classify(_ mask: Int32, _ name: String = "books.txt", wd: Int32 = 2) -> C.Outcome {
        C.classify(wd: wd, mask: UInt32(bitPattern: mask), name: name, directoryWatch: dirWD, fileName: "books.txt")
    }

    @Test func completedWritesAreContentChanges() {
        #expect(classify(IN_CLOSE_WRITE) == .deliver(.contentMayHaveChanged))
        #expect(classify(IN_MOVED_TO) == .deliver(.contentMayHaveChanged))
    }

    @Test func removalsCreationsAndAttributes() {
        #expect(classify(IN_DELETE) == .deliver(.removed))
        #expect(classify(IN_MOVED_FROM) == .deliver(.removed))
        #expect(classify(IN_CREATE) == .deliver(.created))
        #expect(classify(IN_ATTRIB) == .deliver(.attributesChanged))
    }

    @Test func modifyOpenAndAccessAreNeverDecisive() {
        #expect(classify(IN_MODIFY) == .ignore)
        #expect(classify(IN_OPEN) == .ignore)
        #expect(classify(IN_ACCESS) == .ignore)
        #expect(classify(IN_CLOSE_NOWRITE) == .ignore)
    }

    @Test func otherNamesAreIgnored() {
        for name in [
            ".books.txt.swp", "4913", "books.txt~", ".#books.txt", "sedAbC123", "books.txt.tmp", "", "Books.txt",
        ] {
            #expect(classify(IN_CLOSE_WRITE, name) == .ignore)
            #expect(classify(IN_MOVED_TO, name) == .ignore)
            #expect(classify(IN_DELETE, name) == .ignore)
        }
    }

    @Test func directoryLossAndOverflow() {
        #expect(classify(IN_DELETE_SELF, "") == .directoryLost)
        #expect(classify(IN_MOVE_SELF, "") == .directoryLost)
        #expect(classify(IN_IGNORED, "") == .directoryLost)
        #expect(classify(IN_UNMOUNT, "") == .directoryLost)
        #expect(classify(IN_Q_OVERFLOW, "", wd: -1) == .deliver(.overflow))
        #expect(classify(IN_CLOSE_WRITE, "books.txt", wd: 7) == .ignore)  // unknown watch
        #expect(classify(IN_IGNORED, "", wd: 7) == .ignore)  // e.g. the wake pipe's watch
    }

    @Test func directoryMaskHasWhatIsNeededAndNoModify() {
        let mask = C.directoryMask
        for bit in [
            IN_CLOSE_WRITE, IN_MOVED_TO, IN_MOVED_FROM, IN_CREATE, IN_DELETE, IN_ATTRIB,
            IN_DELETE_SELF, IN_MOVE_SELF, IN_ONLYDIR,
        ] {
            #expect(mask & UInt32(bitPattern: bit) != 0)
        }
        #expect(mask & UInt32(IN_MODIFY) == 0)
    }

    @Test func networkFileSystemMagicMapping() {
        let expected: [(Int, NetworkFileSystemKind)] = [
            (0x6969, .nfs), (0x517B, .smb), (0xFE53_4D42, .smb2), (0xFF53_4D42, .cifs),
            (0x6573_5546, .fuse), (0x00C3_6400, .ceph), (0x0102_1997, .ninePee),
            (0x5346_414F, .afs), (0x7375_7245, .coda),
        ]
        for (magic, kind) in expected {
            #expect(NetworkFileSystemKind(filesystemType: magic) == kind)
        }
        // Sign-extended 32-bit magics still match.
        #expect(NetworkFileSystemKind(filesystemType: Int(Int32(bitPattern: 0xFF53_4D42))) == .cifs)
        for kind in NetworkFileSystemKind.allCases {
            #expect(NetworkFileSystemKind(filesystemType: Int(kind.magic)) == kind)
        }
        #expect(Set(NetworkFileSystemKind.allCases.map(\.magic)).count == NetworkFileSystemKind.allCases.count)
        // Local filesystems: ext4, tmpfs, xfs, btrfs, overlayfs.
        for local in [0xEF53, 0x0102_1994, 0x5846_5342, 0x9123_683E, 0x794C_7630] {
            #expect(NetworkFileSystemKind(filesystemType: local) == nil)
        }
        #expect(NetworkFileSystemKind.ninePee.description == "9p")
    }

    @Test func localPathsAreNotNetworkFileSystems() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-fs")
        #expect(detectNetworkFileSystem(path: dir.path) == nil)
        #expect(detectNetworkFileSystem(path: dir.file("absent-books.txt")) == nil)
        let hub = InotifyHub()  // not started: making a watcher does not touch the library
        let (watcher, warning) = try makeFileWatcher(path: dir.file("books.txt"), hub: hub)
        #expect(watcher.mode == .inotify)
        #expect(warning == nil)
    }

    @Test func pathSplitting() throws {
        let p = try WatchedPath("/srv/books/books.txt")
        #expect(p.directory == "/srv/books")
        #expect(p.name == "books.txt")
        #expect(try WatchedPath("/books.txt").directory == "/")
        let relative = try WatchedPath("books.txt")
        #expect(relative.path.hasPrefix("/"))
        #expect(relative.name == "books.txt")
        for bad in ["", "/srv/books/", "/srv/.", "/srv/.."] {
            #expect(throws: FileWatcherError.invalidPath(bad)) { try WatchedPath(bad) }
        }
    }

    @Test func snapshotTransitions() {
        let a = PolledFileState(
            device: 1, inode: 2, size: 3, modificationSeconds: 4, modificationNanoseconds: 5,
            changeSeconds: 6, changeNanoseconds: 7)
        let b = PolledFileState(
            device: 1, inode: 2, size: 3, modificationSeconds: 4, modificationNanoseconds: 6,
            changeSeconds: 6, changeNanoseconds: 7)
        #expect(PolledFileState.event(from: nil, to: nil) == nil)
        #expect(PolledFileState.event(from: nil, to: a) == .created)
        #expect(PolledFileState.event(from: a, to: nil) == .removed)
        #expect(PolledFileState.event(from: a, to: a) == nil)
        #expect(PolledFileState.event(from: a, to: b) == .contentMayHaveChanged)
    }

    @Test func errorMessagesCarryErrnoText() {
        #expect(FileWatcherError.watchFailed(directory: "/x", errno: ENOSPC).description.contains("max_user_watches"))
        #expect(FileWatcherError.watchFailed(directory: "/x", errno: EACCES).description.contains("Permission denied"))
        #expect(FileWatcherError.inotifyInitializationFailed(errno: EMFILE).description.contains("max_user_instances"))
        #expect(FileWatcherError.descriptorAboveSelectLimit(fd: 2000).description.contains("1024"))
        let noThread = FileWatcherError.threadStartFailed(DedicatedThreadError(name: "booksd-inotify", code: EAGAIN))
        #expect(noThread.description.contains("cannot start thread booksd-inotify"))
        #expect(noThread.description.contains("RLIMIT_NPROC"))
    }
}
