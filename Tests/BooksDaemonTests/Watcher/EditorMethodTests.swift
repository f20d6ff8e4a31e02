import BooksTestSupport
import Glibc
import Testing

@testable import BooksDaemon

/// Real tools editing books.txt (methods from EVENTS.md): every one must end in
/// `.contentMayHaveChanged`, and none may be mistaken for a lost watch or an overflow, as the
/// watcher booksd runs (a store's watcher on the inotify hub) reports them. An extension of the
/// serialized inotify suite: libinotifytools is a process singleton.
extension InotifyWatcherTests {
    static func editorCommand(_ method: String, _ file: String) -> [String] {
        let vimNoRc = ["/usr/bin/vim", "-Es", "-u", "NONE", "-N"]
        let edit = ["-c", "%s/Herbert/HERBERT/", "-c", "wq", file]
        switch method {
        case "sed -i": return ["/usr/bin/sed", "-i", "s/Herbert/HERBERT/", file]
        case "perl -pi": return ["/usr/bin/perl", "-pi", "-e", "s/Herbert/HERBERT/", file]
        case "vim compatible (in place)": return ["/usr/bin/vim", "-Es"] + edit
        case "vim bkc=no (rename)": return vimNoRc + ["-c", "set backupcopy=no writebackup"] + edit
        case "vim bkc=auto + backup (keeps books.txt~)": return vimNoRc + ["-c", "set backup backupcopy=auto"] + edit
        case "emacs batch (rename, keeps books.txt~)":
            return [
                "/usr/bin/emacs", "--batch", "-Q", file, "--eval",
                "(progn (goto-char (point-min)) "
                    + "(while (search-forward \"Herbert\" nil t) (replace-match \"HERBERT\")) (save-buffer))",
            ]
        default: return []
        }
    }

    @Test(arguments: [
        "sed -i", "perl -pi", "vim compatible (in place)", "vim bkc=no (rename)",
        "vim bkc=auto + backup (keeps books.txt~)", "emacs batch (rename, keeps books.txt~)",
    ])
    func editorMethodEndsInContentChange(method: String) throws {
        let arguments = Self.editorCommand(method, books)
        guard TestFiles.isExecutable(arguments[0]) else {
            print("skipping \(method): \(arguments[0]) not installed")
            return
        }
        let recorder = EventRecorder()
        let watcher = try started(recorder)
        defer { watcher.stop() }
        #expect((try? ChildProcess.runBlocking(arguments, timeout: 20))?.status == 0)
        #expect(recorder.wait(for: .contentMayHaveChanged))
        MonotonicClock.sleep(seconds: settle)
        let events = recorder.all
        #expect(!events.contains(.watchLost))
        #expect(!events.contains(.overflow))
        // The last content-relevant event is a completed write, never a removal.
        #expect(events.last(where: { $0 != .attributesChanged }) == .contentMayHaveChanged)
        print("\(method): \(events)")
    }
}
