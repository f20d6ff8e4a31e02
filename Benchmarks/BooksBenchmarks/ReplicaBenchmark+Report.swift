/// The replica benchmark's docs section.
extension ReplicaBenchmark {
    func markdown(machine: MachineInfo) -> String {
        var text = Self.heading + "\n\n"
        text +=
            "Release build, \(machine.date), \(machine.processors) CPUs (\(machine.cpuModel)), \(machine.kernel). One nats-server on loopback, an owner booksd and one replica (two in the writers' table) "
        text += "(`booksd --replica default=PATH`) on the same machine; `booksctl subscribe --json` on each socket. "
        text += "Latency from the editing call's return to the subscriber's line; the replica's subscriber sees a "
        text += "change once the replica has written it into its own file. Medians and p99 of each cell, in ms.\n\n"
        text += "| rows | first copy (s) | owner edit | owner subscriber p50 / p99 | replica subscriber p50 / p99 | "
        text += "ratio p50 | missed |\n|---|---|---|---|---|---|---|\n"
        for cell in cells {
            for kind in cell.owner {
                let (l, r) = (Distribution(kind.local), Distribution(kind.replica))
                text +=
                    "| \(CoreReport.rows(cell.rows)) | \(CoreReport.ms(cell.copySeconds)) | \(kind.kind.rawValue) | "
                text += "\(CoreReport.ms(l.p50)) / \(CoreReport.ms(l.p99)) | \(CoreReport.ms(r.p50)) / "
                text += "\(CoreReport.ms(r.p99)) | \(CoreReport.ms(r.p50 / l.p50))× | \(kind.missed) |\n"
            }
        }
        text +=
            "\n| rows | replica append → owner subscriber p50 / p99 | missed | file (MB) | owner VmRSS / VmHWM (MB) "
        text += "| replica VmRSS / VmHWM (MB) | replica peak / file |\n|---|---|---|---|---|---|---|\n"
        for cell in cells {
            let back = Distribution(cell.back)
            let mb = { (kb: Int) in CoreReport.ms(Double(kb) / 1024) }
            text += "| \(CoreReport.rows(cell.rows)) | \(CoreReport.ms(back.p50)) / \(CoreReport.ms(back.p99)) | "
            text += "\(cell.backMissed) | \(mb(cell.fileKB)) | \(mb(cell.ownerRSS)) / \(mb(cell.ownerHWM)) | "
            text += "\(mb(cell.replicaRSS)) / \(mb(cell.replicaHWM)) | "
            text += "\(CoreReport.ms(Double(cell.replicaHWM) / Double(max(cell.fileKB, 1))))× |\n"
        }
        text += writersMarkdown()
        text += "\nTargets: owner edit → replica p50 ≤ 5 ms at 10k rows; ≤ 1.5× the owner's own subscriber at 1M rows; "
        text += "the replica's peak ≤ 2.5× the file; 32 writers on the owner: the replicas keep up (lag reported).\n"
        return text
    }
}
