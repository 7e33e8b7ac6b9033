import ArgumentParser
import LanChatControl

/// `lanchat doctor`: checks what lanchat needs from this machine and says what to run to fix
/// what is wrong. Not a control API method: it asks the daemon `status` and `who`, and the
/// system through busctl, avahi-browse, ip, nft and resolvectl (Doctor/).
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the daemon, avahi-daemon, the published record, peers, multicast, the "
            + "listening port, the firewall and systemd-resolved; print what is wrong and the fix.",
        discussion: """
            Each check prints one line: ✓ when it passes, ✗ with the command that fixes it, or \
            - when it could not run (no daemon to ask, a tool missing, no permission to read \
            the firewall). Exits 0 when no check failed, 1 otherwise. Works without a running \
            daemon: the daemon check then fails and the checks that need it are skipped. Each \
            tool it runs is stopped after 2 s. See lanchat(1), DOCTOR.
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = global.makeContext()
        let facts = await DoctorGathering.gather(
            client: context.client, uid: context.environment.uid)
        let report = DoctorReport.evaluate(facts)
        try context.show(DoctorJSON(report)) { _ in
            DoctorView.render(report, style: context.style)
        }
        if !report.ok {
            let failed = report.checks.filter(\.isFailure).map(\.name)
            throw ControlError.failed(
                "\(failed.count) of \(report.checks.count) checks failed: "
                    + failed.joined(separator: ", "))
        }
    }
}
