import ArgumentParser
import LanChatControl

/// `lanchat doctor`: checks what lanchat needs from this machine and says what to run to fix
/// what is wrong. Not a control API method: it asks the daemon `status` and `who`, and the
/// system through busctl, avahi-browse, ip, nft and resolvectl (Doctor/).
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        // The abstract names no checks (a partial list left out three, found by QA): the
        // discussion lists every one, in the order DoctorReport.checks runs them.
        abstract: "Check what lanchat needs from this machine; print what is wrong and the fix.",
        discussion: """
            The checks, in order: socket (exists, is yours, 0600, in a directory only you can \
            change; a symbolic link is followed), daemon (answers status; when nothing \
            answers, whether a lanchatd still holds the default data directory's lock, its \
            socket gone), version (lanchat \
            and lanchatd are the same release), configuration (the last reload applied), \
            data directory (writable, at least 64 MiB \
            free), avahi-daemon (answers on the system D-Bus), mdns record (this node's \
            _lanchat._tcp record is on the LAN), peers (one is online), multicast (an \
            interface can carry mDNS), port (the listening port accepts connections), \
            firewall (no nftables rule drops mDNS or the port), systemd-resolved (its own mDNS \
            responder is off).

            Each check prints one line: ✓ when it passes, ✗ with the command that fixes it, or \
            - when it could not run or does not apply (no daemon to ask, a tool missing, no \
            permission to read the firewall, --no-mdns). Exits 0 when no check failed, 1 \
            otherwise. Works without a running daemon: the daemon check then fails, the \
            checks that need it are skipped, and avahi-daemon and multicast are not counted \
            as failed, since only the daemon can tell whether it uses mDNS. A fix that starts \
            or restarts lanchatd names systemctl only for the default socket, the user \
            service's. Each tool it runs is stopped after 2 s. See lanchat(1), DOCTOR.
            """)

    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let context = global.makeContext()
        let environment = context.environment
        let userService = ControlSocketPath.userService(environment: environment)
        let facts = await DoctorGathering.gather(
            client: context.client, uid: environment.uid, defaultSocketPath: userService,
            defaultDataDirectory: DataDirectoryPath.defaultDirectory(
                environment: environment.variables))
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
