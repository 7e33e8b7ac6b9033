import LanChatControl
import Testing

@testable import LanChatCLI

/// A lanchatd that runs while its socket is gone (QA: after `rm SOCK`, doctor said "not
/// running, start it", and the start was refused with exit 75 because the running daemon
/// holds the data directory's lock). Judged from hand-made facts, and the /proc parsers fed
/// hand-written text.
@Suite struct DoctorLockTests {
    typealias F = DoctorFixtures

    static let dataDirectory = "/home/u/.local/share/lanchat"
    static let other = "/tmp/x/alice.sock"

    /// No answer on a missing socket, and PID 4321 holding the lock.
    func socketGone(path: String = F.socketPath, stillBound: Bool? = true) -> DoctorFacts {
        var facts = F.noDaemon
        facts.socketPath = path
        facts.defaultSocketPath = F.socketPath
        facts.dataDirectoryLock = DataDirectoryLockFacts(
            directory: Self.dataDirectory, holderPID: 4321, socketStillBound: stillBound)
        return facts
    }

    @Test func aHeldLockMeansTheDaemonRunsWithoutItsSocket() {
        for stillBound in [true, nil] {
            let facts = socketGone(stillBound: stillBound)
            for name in ["socket", "daemon"] {
                let result = F.check(name, facts)
                #expect(result?.outcome == .failed)
                #expect(
                    result?.detail
                        == "lanchatd (PID 4321) runs but its socket \(F.socketPath) is gone")
                #expect(
                    result?.fix
                        == "restart it: systemctl --user restart lanchatd (or kill 4321 and "
                        + "start it again)")
            }
        }
    }

    /// A socket --socket names is not the user service's: systemctl would restart another.
    @Test func anotherSocketIsRestartedByItsPID() {
        let facts = socketGone(path: Self.other)
        for name in ["socket", "daemon"] {
            #expect(
                F.check(name, facts)?.fix
                    == "restart it: kill 4321 and start it again (lanchatd --socket \(Self.other))")
        }
    }

    /// A stale socket file that refuses connections, while the daemon's own socket was
    /// replaced: the socket check passes (the file is fine), the daemon check says why.
    @Test func aRefusingSocketIsAlsoGone() {
        var facts = socketGone()
        facts.socket = F.healthy.socket
        facts.status = .failure(
            .daemonNotRunning("lanchatd is not running (nothing listens on \(F.socketPath))"))
        #expect(F.check("socket", facts)?.outcome == .passed)
        #expect(
            F.check("daemon", facts)?.detail.hasSuffix("its socket \(F.socketPath) is gone") == true
        )
    }

    /// Nothing listens at the path, even at a removed file: the daemon holding the lock serves
    /// another socket, and killing it would stop a daemon that is fine.
    @Test func aDaemonListeningElsewhereIsNotKilled() {
        let facts = socketGone(path: Self.other, stillBound: false)
        for name in ["socket", "daemon"] {
            let result = F.check(name, facts)
            #expect(
                result?.detail
                    == "lanchatd (PID 4321) runs on \(Self.dataDirectory) but does not listen on "
                    + Self.other)
            #expect(
                result?.fix
                    == "give lanchat the socket it listens on (--socket PATH or LANCHAT_SOCKET); "
                    + "a second lanchatd for \(Self.other) needs a data directory of its own: "
                    + "lanchatd --socket \(Self.other) --data-dir DIR")
            #expect(result?.fix?.contains("kill") == false)
        }
    }

    /// The daemon holding the lock names the socket it does listen on when its descriptors
    /// can be read; listening on none, it is starting, and the socket asked about may be its
    /// own (found by QA: a call during a start was sent to "another socket").
    @Test func theSocketItListensOnIsNamedAndAStartIsSaid() {
        var facts = socketGone(path: Self.other, stillBound: false)
        facts.dataDirectoryLock?.holderSockets = ["/run/user/1000/lanchat/lanchatd.sock"]
        #expect(
            F.check("daemon", facts)?.fix?.hasPrefix(
                "give lanchat the socket it listens on (--socket "
                    + "/run/user/1000/lanchat/lanchatd.sock or LANCHAT_SOCKET)") == true)
        // Listening on none, or already on the one asked about (bound between the two
        // looks at the kernel's table): starting.
        for sockets in [[], [Self.other]] {
            facts.dataDirectoryLock?.holderSockets = sockets
            #expect(
                F.check("daemon", facts)?.detail.hasSuffix("has not opened its socket yet") == true)
        }
        facts.dataDirectoryLock?.holderSockets = []
        for name in ["socket", "daemon"] {
            let result = F.check(name, facts)
            #expect(
                result?.detail
                    == "lanchatd (PID 4321) on \(Self.dataDirectory) is starting and has not "
                    + "opened its socket yet")
            #expect(result?.fix == "run lanchat doctor again in a moment")
        }
    }

    /// Nobody holds the lock: not running, start it, as before.
    @Test func aFreeLockKeepsTheStartAdvice() {
        var facts = socketGone()
        facts.dataDirectoryLock?.holderPID = nil
        #expect(F.check("daemon", facts)?.fix == "systemctl --user start lanchatd")
        #expect(F.check("socket", facts)?.detail.hasSuffix("lanchatd is not running") == true)
        facts.dataDirectoryLock = nil
        #expect(F.check("daemon", facts)?.fix == "systemctl --user start lanchatd")
    }

    /// A directory named by --socket is a wrong path whoever holds the lock.
    @Test func aWrongPathStaysAWrongPath() {
        var facts = socketGone(path: "/tmp/x/alice")
        facts.socket = .directory
        for name in ["socket", "daemon"] {
            #expect(
                F.check(name, facts)?.fix?.hasPrefix("check --socket and LANCHAT_SOCKET") == true)
        }
    }

    @Test func theFlockHolderIsReadFromProcLocks() {
        // st_dev of 8:1 and of 259:3 (NVMe), as glibc's makedev builds them.
        let sda1: UInt64 = 0x801
        let nvme: UInt64 = 0x1_0303
        #expect(DataDirectoryLockProbe.deviceMajor(nvme) == 259)
        #expect(DataDirectoryLockProbe.deviceMinor(nvme) == 3)
        let locks = """
            1: POSIX  ADVISORY  WRITE 100 08:01:5555 0 EOF
            2: FLOCK  ADVISORY  WRITE 200 08:02:5555 0 EOF
            3: FLOCK  ADVISORY  WRITE 300 08:01:5555 0 EOF
            3: -> FLOCK  ADVISORY  WRITE 400 08:01:5555 0 EOF
            4: FLOCK  ADVISORY  WRITE 500 103:03:77 0 EOF

            """
        func holder(_ device: UInt64, _ inode: UInt64, written: Int32? = nil) -> Int32? {
            DataDirectoryLockProbe.flockHolder(
                in: locks, device: device, inode: inode, writtenPID: written)
        }
        // A POSIX lock and a waiter hold no flock; the same inode on another device is not it.
        #expect(holder(sda1, 5555) == 300)
        #expect(holder(nvme, 77) == 500)
        #expect(holder(sda1, 77) == nil)
        // btrfs and overlayfs: stat's device is not the one /proc/locks shows; the inode
        // counts with the PID the lock file holds.
        #expect(holder(0x2d, 77, written: 500) == 500)
        #expect(holder(0x2d, 77, written: 501) == nil)
    }

    @Test func aRemovedSocketStillShowsInProcNetUnix() {
        let table = """
            Num       RefCount Protocol Flags    Type St Inode Path
            0000000000000000: 00000002 00000000 00010000 0001 01  4711 /tmp/x/alice.sock
            0000000000000000: 00000002 00000000 00000000 0001 01  4712 /tmp/x/client.sock
            0000000000000000: 00000002 00000000 00010000 0001 01 123456 /tmp/x/with space.sock
            0000000000000000: 00000003 00000000 00000000 0001 03 123457

            """
        func listens(_ path: String) -> Bool {
            DataDirectoryLockProbe.listens(on: ["relative.sock", path], unixTable: table)
        }
        #expect(listens("/tmp/x/alice.sock"))
        #expect(listens("/tmp/x/with space.sock"))
        // Bound but not listening (a client's own address), or not there at all.
        #expect(!listens("/tmp/x/client.sock"))
        #expect(!listens("/tmp/x/bob.sock"))
        #expect(!listens(""))
    }
}
