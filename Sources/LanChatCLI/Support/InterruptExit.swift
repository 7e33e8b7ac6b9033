import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// For the commands that run until interrupted (`watch`): SIGINT and SIGTERM end the
/// process with exit 0, the normal way to stop them. Every line was already written with
/// `write(2)`, so there is nothing to flush.
enum InterruptExit {
    private nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []

    /// Once per process, from the main task before the stream starts.
    static func install() {
        guard sources.isEmpty else { return }
        for signalNumber in [SIGINT, SIGTERM] {
            // Ignored as a signal, so that the dispatch source alone sees it.
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler { exitProcess(0) }
            source.resume()
            sources.append(source)
        }
    }
}
