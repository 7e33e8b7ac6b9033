import Glibc
import NIOCore

/// What went wrong in a system call, for a user: NIO's `IOError` reads as
/// `bind(descriptor:ptr:bytes:): Address already in use) (errno: 98)`, naming its own
/// function; the system's text is what the user can act on.
func systemErrorText(_ error: any Error) -> String {
    guard let ioError = error as? IOError else { return "\(error)" }
    return String(cString: strerror(ioError.errnoCode))
}
