/// The directory part of a path, as `dirname` gives it: `/a/b` → `/a`, `/a` → `/`, `a` → `.`.
/// One definition for the daemon's checks of where its files are (the data, socket and
/// configuration directories, a backup's destination).
public func directoryPart(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
