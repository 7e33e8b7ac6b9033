#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ends the process with `code`. Output is written with `write(2)` as it is produced, so
/// there is no buffer to flush.
func exitProcess(_ code: Int32) -> Never {
    exit(code)
}
