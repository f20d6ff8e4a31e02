import BooksTestSupport
import Glibc
import Testing

/// `booksctl subscribe` cursors, `--exec`, `--count` and the reconnect notice, against a real booksd.
@Suite("booksctl feed conveniences", .timeLimit(.minutes(3))) struct BooksctlFeedTests {
    static let ctl = shellQuote(BuildProducts.booksctl)

    @Test("--json lines carry epoch, seq and time; --cursor-file resumes after a restart of booksctl")
    func cursorFileResumes() async throws {
        let h = try await DaemonHarness("cursor", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let c = Self.ctl
        // First run: wait for one change set, print it, save the cursor, exit.
        let first = try await h.tools.must(
            """
            \(c) subscribe --json --cursor-file ../cursor --once > ../first.out &
            until \(c) status --json | grep -q '"subscribers" : 1'; do sleep 0.05; done
            \(c) add 'First' 'A' > /dev/null
            wait $!; echo "exit=$?"; cat ../first.out; cat ../cursor
            """)
        let lines = first.output.split(separator: "\n").map(String.init)
        #expect(lines.first == "exit=0", "\(first)")
        let epoch = try #require(lines.dropFirst().first.flatMap { jsonField($0, "epoch") }, "\(first)")
        #expect(lines.count == 3, "\(first)")
        #expect(lines[1].contains(#""seq":1,"kind":"insert""#))
        #expect(lines[1].contains(#""time":"20"#))
        #expect(lines[2] == "\(epoch):1", "the cursor file holds the last printed change")
        // booksctl is not running: two change sets happen; the next run replays exactly them.
        let second = try await h.tools.must(
            """
            \(c) add 'Second' 'B' > /dev/null; \(c) add 'Third' 'C' > /dev/null
            \(c) subscribe --json --cursor-file ../cursor --count 2; echo "exit=$?"; cat ../cursor
            """, timeout: 30)
        let replayed = second.output.split(separator: "\n").map(String.init)
        #expect(replayed.count == 4, "\(second)")
        #expect(replayed.first?.contains(#""seq":2,"kind":"insert","id":"#) == true, "\(second)")
        #expect(replayed.first?.contains(#""name":"Second""#) == true)
        #expect(replayed.dropFirst().first?.contains(#""name":"Third""#) == true)
        #expect(replayed.suffix(2) == ["exit=0", "\(epoch):3"])
        // --since takes the same cursor; a stale one (another epoch) resyncs with one marker line.
        let stale = try await h.tools.must(
            """
            \(c) subscribe --json --since \(epoch):2 --once; echo "exit=$?"
            echo 'OTHER-EPOCH:7' > ../cursor
            \(c) subscribe --json --cursor-file ../cursor --once > ../stale.out 2> ../stale.err &
            until \(c) status --json | grep -q '"subscribers" : 1'; do sleep 0.05; done
            \(c) add 'Fourth' 'D' > /dev/null
            wait $!; echo "exit=$?"; cat ../stale.out ../stale.err
            """, timeout: 30)
        let out = stale.output.split(separator: "\n").map(String.init)
        #expect(out.first?.contains(#""name":"Third""#) == true, "\(stale)")
        #expect(out.dropFirst().first == "exit=0")
        #expect(out.contains("exit=0"))
        #expect(out.contains { $0.contains(#""kind":"resync""#) && $0.contains("different-epoch") }, "\(stale)")
        #expect(out.contains { $0.contains(#""name":"Fourth""#) }, "\(stale)")
        #expect(TestFiles.readText(h.root + "/cursor") == "\(epoch):4\n")
    }

    @Test("--exec runs once per change set, in order, with JSON on stdin and BOOKS_* variables; failures are logged")
    func execPerChangeSet() async throws {
        let h = try await DaemonHarness("exec", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let c = Self.ctl
        let result = try await h.tools.must(
            #"""
            cat > ../hook.sh <<'HOOK'
            #!/bin/sh
            body=$(cat)
            echo "$BOOKS_SEQ|$BOOKS_KIND|$BOOKS_NAME|$BOOKS_SETS|$body" >> ../hook.log
            exit 7
            HOOK
            chmod +x ../hook.sh
            \#(c) subscribe --count 3 --exec ../hook.sh 2> ../exec.err &
            until \#(c) status --json | grep -q '"subscribers" : 1'; do sleep 0.05; done
            for n in One Two Three; do \#(c) add "$n" 'X' > /dev/null; done
            wait $!; echo "exit=$?"
            """#, timeout: 40)
        #expect(result.output.contains("exit=0"), "\(result)")
        let log = (TestFiles.readText(h.root + "/hook.log") ?? "").split(separator: "\n").map(String.init)
        #expect(log.count == 3, "\(log)")
        for (index, (line, name)) in zip(log, ["One", "Two", "Three"]).enumerated() {
            #expect(line.hasPrefix("\(index + 1)|insert|\(name)|1|{\"epoch\":"), "\(line)")
            #expect(line.contains(#""changes":[{"seq":\#(index + 1),"kind":"insert""#), "\(line)")
        }
        let errors = TestFiles.readText(h.root + "/exec.err") ?? ""
        #expect(errors.ranges(of: "exited with status 7").count == 3, "\(errors)")
    }

    @Test("--exec runs for a 200 KB name and for 1,000 long ids (variables cut, BOOKS_TRUNCATED=1, stdin whole)")
    func execEnvironmentIsCapped() async throws {
        let h = try await DaemonHarness("execcap", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let c = Self.ctl
        let hook =
            #"echo "$BOOKS_SEQ $(printf %s "$BOOKS_NAME" | wc -c) $BOOKS_TRUNCATED $(printf '%s\n' "$BOOKS_IDS" | wc -l) $(wc -c)""#
        let result = try await h.tools.must(
            #"""
            \#(c) subscribe --count 2 --cursor-file ../cursor --exec sh -c \#(shellQuote(hook + " >> ../runs")) 2> ../exec.err &
            until \#(c) status --json | grep -q '"subscribers" : 1'; do sleep 0.05; done
            { head -c 200000 /dev/zero | tr '\0' n; printf '\tAuthor\n'; } | \#(c) add - > /dev/null
            long=$(head -c 150 /dev/zero | tr '\0' i)
            i=0; while [ $i -lt 1000 ]; do printf '{"id":"%s%04d","name":"n","author":"a"}\n' "$long" $i; i=$((i+1)); done \
                | \#(c) add - > /dev/null
            wait $!; echo "exit=$?"; cat ../runs; cat ../cursor
            """#, timeout: 60)
        let lines = result.output.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        #expect(lines.first == ["exit=0"], "\(result)")
        #expect(
            lines.count == 4, "two runs and the cursor: \(result) \(TestFiles.readText(h.root + "/exec.err") ?? "")")
        guard lines.count == 4 else { return }
        // Cut to 16 KiB, the marker "…[truncated]" included.
        #expect(lines[1].prefix(4) == ["1", "16384", "1", "1"], "\(lines[1])")
        #expect((Int(lines[1][4]) ?? 0) > 200_000, "stdin carries the whole name")
        #expect(lines[2].prefix(3) == ["2", "0", "1"], "\(lines[2])")
        #expect((Int(lines[2][3]) ?? 0) > 100 && (Int(lines[2][3]) ?? 0) < 1000, "\(lines[2])")
        #expect((Int(lines[2][4]) ?? 0) > 150_000, "stdin carries every id")
        #expect(lines[3].first?.hasSuffix(":2") == true)
    }

    @Test("--exec whose command cannot be started retries, then exits 1 without moving the cursor past it")
    func execThatCannotStartKeepsTheCursor() async throws {
        let h = try await DaemonHarness("execfail", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let c = Self.ctl
        let result = try await h.tools.must(
            """
            \(c) subscribe --count 1 --cursor-file ../cursor --exec ../no-such-hook 2> ../exec.err &
            until \(c) status --json | grep -q '"subscribers" : 1'; do sleep 0.05; done
            \(c) add One X > /dev/null
            wait $!; echo "exit=$?"; cat ../cursor 2>/dev/null || echo no-cursor
            """, timeout: 60)
        #expect(result.output.split(separator: "\n").map(String.init) == ["exit=1", "no-cursor"], "\(result)")
        let errors = TestFiles.readText(h.root + "/exec.err") ?? ""
        #expect(errors.ranges(of: "retrying in").count == 3, "\(errors)")
        #expect(errors.contains("gave up after 4 attempts, the cursor stays before seq 1"), "\(errors)")
    }

    @Test("--initial --exec runs once at start, also when no book matches")
    func initialRun() async throws {
        let h = try await DaemonHarness("initial", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let c = Self.ctl
        let script = #"echo "$BOOKS_INITIAL $BOOKS_INSERTED $(cat | head -c 60)""#
        let some = try await h.tools.must("\(c) subscribe --initial --once --exec sh -c \(shellQuote(script))")
        #expect(some.output.hasPrefix(#"1 3 {"epoch":""#), "\(some)")
        let none = try await h.tools.must(
            "\(c) subscribe --name no-such-book --initial --once --exec sh -c \(shellQuote(script))")
        #expect(none.output.hasPrefix(#"1 0 {"epoch":""#), "\(none)")
    }

    @Test("--coalesce merges a burst into one run")
    func coalesceMergesBursts() async throws {
        let h = try await DaemonHarness("coalesce", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let c = Self.ctl
        let result = try await h.tools.must(
            """
            \(c) subscribe --coalesce 4000 --count 3 --exec sh -c 'echo "$BOOKS_SETS $BOOKS_FIRST_SEQ $BOOKS_SEQ" >> ../runs' &
            until \(c) status --json | grep -q '"subscribers" : 1'; do sleep 0.05; done
            \(c) add A a > /dev/null; \(c) add B b > /dev/null; \(c) add C c > /dev/null
            wait $!; echo "exit=$?"; cat ../runs
            """, timeout: 40)
        #expect(result.output.split(separator: "\n").map(String.init) == ["exit=0", "3 1 3"], "\(result)")
    }

    @Test("the reconnect notice is printed once per outage, not once per retry")
    func reconnectNoticeOnce() async throws {
        let h = try await DaemonHarness("reconnect", books: Fixture.books(count: 3))
        defer { h.shutdown() }
        let err = h.root + "/sub.err"
        let out = h.root + "/sub.out"
        let sub = try ChildProcess.spawn(
            [BuildProducts.booksctl, "--socket", h.socket, "subscribe", "--json", "--once"],
            stdout: .appendFile(out), stderr: .appendFile(err))
        defer { _ = sub.kill() }
        #expect(await eventually(timeout: 10) { (try? await h.status().subscribers) == 1 })
        _ = h.daemon?.stop()
        // Back-off 100, 200, 400, 800, 1600 ms: five retries or more in 3.5 s.
        await MonotonicClock.pause(seconds: 3.5)
        try await h.startDaemon()
        #expect(await eventually(timeout: 10) { (TestFiles.readText(err) ?? "").contains("reconnected") })
        try await h.tools.must("\(Self.ctl) add After x > /dev/null")
        #expect(await sub.wait(timeout: 10) == 0)
        let notices = TestFiles.readText(err) ?? ""
        #expect(notices.ranges(of: "reconnecting").count == 1, "\(notices)")
        #expect((TestFiles.readText(out) ?? "").contains(#""name":"After""#))
    }
}

/// The string value of `"key":"…"` in a one-line JSON object (no escapes in the value).
func jsonField(_ line: String, _ key: String) -> String? {
    guard let range = line.firstRange(of: "\"\(key)\":\"") else { return nil }
    return line[range.upperBound...].split(separator: "\"", maxSplits: 1).first.map(String.init)
}
