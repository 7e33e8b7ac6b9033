import CXattr
import Glibc

/// A file's POSIX access list (`system.posix_acl_access`), read for one question: may a
/// user or group other than ours write the file? Its mode does not say (found by QA: a
/// configuration file another user could write through a named-user entry was read).
enum FileACL {
    /// `user N` or `group N` when a named entry of another user or group has write
    /// permission, after the mask; nil when none has, or the file has no access list.
    static func otherWriter(of path: String, uid: uid_t, gid: gid_t) -> String? {
        let name = "system.posix_acl_access"
        // Its size first: a list of any length is read whole (a fixed buffer would take a
        // long one, which getxattr refuses with ERANGE, for none).
        let needed = getxattr(path, name, nil, 0)
        guard needed >= 4 else { return nil }
        var bytes = [UInt8](repeating: 0, count: needed)
        let size = bytes.withUnsafeMutableBytes {
            getxattr(path, name, $0.baseAddress, $0.count)
        }
        guard size >= 4 else {
            // Changed in between (ERANGE): what cannot be read is taken as a writer.
            return size < 0 && errno == ERANGE ? "an entry that changed while read" : nil
        }
        return otherWriter(in: Array(bytes[..<size]), uid: uid, gid: gid)
    }

    /// The same question of the attribute's bytes: a 4-byte version, then 8-byte entries
    /// (tag, permissions, id; little-endian).
    static func otherWriter(in bytes: [UInt8], uid: uid_t, gid: gid_t) -> String? {
        func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
        func u32(_ at: Int) -> UInt32 {
            (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[at + $1]) << (8 * UInt32($1)) }
        }
        let (namedUser, namedGroup, mask): (UInt16, UInt16, UInt16) = (0x02, 0x08, 0x10)
        let write: UInt16 = 0x02
        var entries: [(tag: UInt16, permissions: UInt16, id: UInt32)] = []
        var offset = 4
        while offset + 8 <= bytes.count {
            entries.append((u16(offset), u16(offset + 2), u32(offset + 4)))
            offset += 8
        }
        let allowed = entries.first { $0.tag == mask }?.permissions ?? 0x07
        for entry in entries where entry.permissions & allowed & write != 0 {
            if entry.tag == namedUser && entry.id != uid { return "user \(entry.id)" }
            if entry.tag == namedGroup && entry.id != gid { return "group \(entry.id)" }
        }
        return nil
    }
}
