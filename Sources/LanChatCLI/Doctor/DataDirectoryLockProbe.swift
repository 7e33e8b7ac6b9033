import LanChatControl

#if canImport(Glibc)
    import Glibc
#endif

/// Finds who holds `<data dir>/lanchatd.lock` without ever touching the lock, so that it can
/// never disturb a running lanchatd, nor one starting meanwhile: the daemon's `flock` belongs
/// to its own open file description, and nothing here locks, opens for writing or creates the
/// file. (`F_GETLK` cannot tell: on Linux it sees POSIX record locks only, never a `flock`.)
/// The kernel's list of locks, /proc/locks, names the PID holding a `flock` on the file's
/// inode; where it cannot be read, the PID the daemon wrote into the file counts only when a
/// live process of that PID is called lanchatd (a PID left by a crash may be another's now).
enum DataDirectoryLockProbe {
    /// `socketPaths`: the socket asked about, as given and absolute, and where its link leads.
    static func probe(directory: String, socketPaths: [String]) -> DataDirectoryLockFacts {
        let table = DoctorGathering.readSmallFile("/proc/net/unix")
        let pid = holder(of: directory + "/" + DataDirectoryPath.lockFileName)
        return DataDirectoryLockFacts(
            directory: directory, holderPID: pid,
            socketStillBound: table.map { listens(on: socketPaths, unixTable: $0) },
            holderSockets: pid.flatMap(listeningPaths(of:)))
    }

    static func holder(of lockPath: String) -> Int32? {
        var info = stat()
        // The daemon opens it O_NOFOLLOW: a link or anything else there is no lock of its.
        guard lstat(lockPath, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let written = DoctorGathering.readSmallFile(lockPath).flatMap { Int32(trimmed($0)) }
        let pid: Int32?
        if let locks = DoctorGathering.readSmallFile("/proc/locks") {
            pid = flockHolder(
                in: locks, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
                writtenPID: written)
        } else {
            pid = written.flatMap { command(of: $0) == "lanchatd" ? $0 : nil }
        }
        guard let pid, isAlive(pid) else { return nil }
        return pid
    }

    /// The PID holding a `flock` on the file of this device and inode, from /proc/locks lines
    /// such as `1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF` (the device as hex
    /// major:minor). A waiter's line (`1: -> FLOCK …`) holds nothing. /proc/locks shows the
    /// file system's own device, which stat reports otherwise on btrfs subvolumes and
    /// overlayfs: the same inode on another device counts only for the PID the file holds.
    static func flockHolder(in locks: String, device: UInt64, inode: UInt64, writtenPID: Int32?)
        -> Int32?
    {
        var sameInodeAndWrittenPID: Int32?
        for line in locks.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", let pid = Int32(fields[4]) else {
                continue
            }
            let place = fields[5].split(separator: ":")
            guard place.count == 3, UInt64(place[2]) == inode,
                let major = UInt64(place[0], radix: 16), let minor = UInt64(place[1], radix: 16)
            else { continue }
            if major == deviceMajor(device) && minor == deviceMinor(device) { return pid }
            if pid == writtenPID { sameInodeAndWrittenPID = pid }
        }
        return sameInodeAndWrittenPID
    }

    /// Whether /proc/net/unix has a listening socket (`__SO_ACCEPTCON`, 0x10000, in Flags)
    /// bound at one of `paths`. The kernel keeps the path a socket was bound at after its file
    /// is removed, so a daemon whose socket is gone still shows there.
    /// Columns: `Num RefCount Protocol Flags Type St Inode Path`.
    static func listens(on paths: [String], unixTable: String) -> Bool {
        let wanted = Set(paths)
        return listeningSockets(unixTable).contains { wanted.contains($0.path) }
    }

    /// The listening sockets of /proc/net/unix bound at a path, with their inodes.
    static func listeningSockets(_ unixTable: String) -> [(inode: String, path: String)] {
        var sockets: [(inode: String, path: String)] = []
        for line in unixTable.split(separator: "\n").dropFirst() {
            var rest = Substring(line)
            var fields: [Substring] = []
            while fields.count < 7, let start = rest.firstIndex(where: { $0 != " " }) {
                let end = rest[start...].firstIndex(of: " ") ?? rest.endIndex
                fields.append(rest[start..<end])
                rest = rest[end...]
            }
            guard fields.count == 7, let flags = UInt32(fields[3], radix: 16),
                flags & 0x10000 != 0
            else { continue }
            // One space separates the inode from the path, which may itself hold spaces.
            let path = String(rest.dropFirst())
            if !path.isEmpty { sockets.append((String(fields[6]), path)) }
        }
        return sockets
    }

    /// The paths of the listening Unix sockets process `pid` holds (its descriptors link to
    /// `socket:[INODE]`), for a lanchatd found by its lock: the socket to give lanchat, or
    /// none yet (it is starting). Nil when its descriptors cannot be read (another user's).
    static func listeningPaths(of pid: Int32) -> [String]? {
        guard let table = DoctorGathering.readSmallFile("/proc/net/unix"),
            let directory = opendir("/proc/\(pid)/fd")
        else { return nil }
        defer { closedir(directory) }
        var inodes: Set<String> = []
        var buffer = [CChar](repeating: 0, count: 64)
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            guard name.first?.isNumber == true else { continue }
            let count = readlink("/proc/\(pid)/fd/\(name)", &buffer, buffer.count - 1)
            guard count > 0 else { continue }
            let target = String(
                decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if target.hasPrefix("socket:["), target.hasSuffix("]") {
                inodes.insert(String(target.dropFirst("socket:[".count).dropLast()))
            }
        }
        return listeningSockets(table).filter { inodes.contains($0.inode) }.map(\.path)
    }

    /// `/proc/PID/comm`: the name the process runs under, nil when it cannot be read.
    static func command(of pid: Int32) -> String? {
        DoctorGathering.readSmallFile("/proc/\(pid)/comm").map { trimmed($0) }
    }

    /// Signal 0 checks that the process exists; EPERM means it does, as another user's.
    private static func isAlive(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }

    /// glibc's `major(3)` and `minor(3)` of a `dev_t`, which Swift does not import.
    static func deviceMajor(_ device: UInt64) -> UInt64 {
        ((device >> 8) & 0xfff) | ((device >> 32) & 0xffff_f000)
    }

    static func deviceMinor(_ device: UInt64) -> UInt64 {
        (device & 0xff) | ((device >> 12) & 0xffff_ff00)
    }
}
