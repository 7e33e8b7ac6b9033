import LanChatFuzzSupport

/// libFuzzer entry point: control-socket request lines, and the same bytes as timestamps
/// (see `ControlRequestHarness` and `TimestampHarness`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = FuzzInput(data, size).bytes
    ControlRequestHarness.run(bytes)
    TimestampHarness.run(bytes)
    return 0
}

#if !LANCHAT_LIBFUZZER
    /// Without libFuzzer (the ordinary build): replay inputs from disk, or write the seeds.
    @main enum FuzzControlRequestReplay {
        static func main() {
            FuzzReplay.main(seeds: ControlRequestSeeds.all) { bytes in
                ControlRequestHarness.run(bytes)
                TimestampHarness.run(bytes)
            }
        }
    }
#endif
