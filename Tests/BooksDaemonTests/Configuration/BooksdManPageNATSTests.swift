import BooksTestSupport
import Testing

/// booksd(8) is complete (SYNOPSIS, NATS) and what the pages cite is shipped: the guides in
/// /usr/share/doc/booksd (scripts/package-deb.sh) and the NATS drop-in (scripts/install.sh).
@Suite struct BooksdManPageNATSTests {
    static let root = BuildProducts.packageRoot

    /// Every `--name` anywhere in `lines` (roff `\-` unescaped).
    static func flags(in lines: some Sequence<Substring>) -> Set<String> {
        var names = Set<String>()
        for line in lines {
            var rest = Substring(String(line).replacing("\\-", with: "-"))
            while let range = rest.firstRange(of: "--") {
                let name = rest[range.upperBound...].prefix { $0.isLetter || $0 == "-" }
                if !name.isEmpty { names.insert(String(name)) }
                rest = rest[range.upperBound...]
            }
        }
        return names
    }

    static func page(_ name: String) throws -> [Substring] {
        try #require(TestFiles.readText(root + "/docs/man/" + name)).split(separator: "\n")
    }

    static func section(_ lines: [Substring], _ title: String) throws -> ArraySlice<Substring> {
        let start = try #require(lines.firstIndex(of: Substring(".SH " + title)), "no section \(title)")
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix(".SH ") } ?? lines.endIndex
        return lines[start..<end]
    }

    @Test("booksd(8)'s SYNOPSIS names every option of OPTIONS")
    func synopsisIsComplete() throws {
        let lines = try Self.page("booksd.8")
        let synopsis = Self.flags(in: try Self.section(lines, "SYNOPSIS"))
        let options = BooksdPackagingTests.options(in: try Self.section(lines, "OPTIONS").filter { $0.hasPrefix(".B") })
        #expect(options.subtracting(synopsis).isEmpty, "missing from SYNOPSIS: \(options.subtracting(synopsis))")
    }

    @Test("booksd(8) has a NATS section: the settings, parts, and the systemd drop-in")
    func natsSection() throws {
        let text = try Self.section(Self.page("booksd.8"), "NATS").joined(separator: "\n")
        for needle in ["nats_url", "max_payload", "\\(dqpart\\(dq", "booksd\\-nats.conf", "IPAddressAllow="] {
            #expect(text.contains(needle), "NATS section lacks \(needle)")
        }
    }

    @Test("the guides the pages cite are shipped in /usr/share/doc/booksd")
    func citedGuidesAreShipped() throws {
        let pages = try ["booksd.8", "booksd.conf.5", "booksctl.1"].map { try Self.page($0).joined(separator: "\n") }
        var cited = Set<String>()
        for page in pages {
            for word in page.split(whereSeparator: { " ()/,;:".contains($0) }) where word.hasSuffix(".md") {
                cited.insert(String(word).replacing("\\-", with: "-").replacing("\\fR", with: ""))
            }
        }
        #expect(cited.isSuperset(of: ["SCALE-OUT.md", "PROTOCOL.md", "FORMAT.md"]), "\(cited)")
        for guide in cited {
            #expect(TestFiles.exists(Self.root + "/docs/" + guide), "\(guide) is cited but not in docs/")
        }
        let seeAlso = try Self.section(Self.page("booksd.8"), "SEE ALSO").joined(separator: "\n")
        #expect(seeAlso.contains("/usr/share/doc/booksd"))
        let packaging = try #require(TestFiles.readText(Self.root + "/scripts/package-deb.sh"))
        #expect(packaging.contains("for guide in docs/*.md"), "package-deb.sh ships docs/*.md")
    }

    @Test("the NATS drop-in opens exactly what NATS needs and install.sh installs it")
    func natsDropIn() throws {
        let dropIn = try #require(TestFiles.readText(Self.root + "/systemd/booksd-nats.conf"))
        let settings = dropIn.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(settings.contains("PrivateNetwork=no"))
        #expect(settings.contains("RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6"))
        #expect(settings.contains { $0.hasPrefix("IPAddressAllow=") })
        #expect(!settings.contains { $0.hasPrefix("IPAddressDeny=") }, "IPAddressDeny=any of the unit stays")
        let paths = try #require(TestFiles.readText(Self.root + "/scripts/install-paths.sh"))
        let install = try #require(TestFiles.readText(Self.root + "/scripts/install.sh"))
        #expect(paths.contains("share/booksd/booksd-nats.conf") && install.contains("systemd/booksd-nats.conf"))
    }

    @Test("the HTTP drop-in opens only TCP for the listed clients; install.sh and the package ship it")
    func httpDropIn() throws {
        let dropIn = try #require(TestFiles.readText(Self.root + "/systemd/booksd-http.conf"))
        let settings = dropIn.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(settings.contains("PrivateNetwork=no"))
        #expect(settings.contains("RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6"))
        #expect(settings.contains("IPAddressAllow=localhost"))
        #expect(!settings.contains { $0.hasPrefix("IPAddressDeny=") }, "IPAddressDeny=any of the unit stays")
        let paths = try #require(TestFiles.readText(Self.root + "/scripts/install-paths.sh"))
        let install = try #require(TestFiles.readText(Self.root + "/scripts/install.sh"))
        let packaging = try #require(TestFiles.readText(Self.root + "/scripts/package-deb.sh"))
        #expect(paths.contains("HTTPDROPIN=${HTTPDROPIN:-$PREFIX/share/booksd/booksd-http.conf}"))
        #expect(paths.contains("\"$NATSDROPIN\" \"$HTTPDROPIN\""), "installed_files lists it (uninstall, package)")
        #expect(install.contains("put 0644 systemd/booksd-http.conf \"$HTTPDROPIN\""))
        #expect(packaging.contains("scripts/install.sh"), "the package is the tree install.sh stages")
        let manual = try #require(TestFiles.readText(Self.root + "/docs/man/booksd.conf.5"))
        #expect(manual.contains("/usr/share/booksd/booksd\\-http.conf"))
    }
}
