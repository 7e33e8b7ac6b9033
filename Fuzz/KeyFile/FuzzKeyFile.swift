import LanChatFuzzSupport

/// libFuzzer entry point: the contents of one `identity.key` (see `KeyFileHarness`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyFile(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    KeyFileHarness.run(FuzzInput(data, size).bytes)
    return 0
}

#if !LANCHAT_LIBFUZZER
    /// Without libFuzzer (the ordinary build): replay inputs from disk, or write the seeds.
    @main enum FuzzKeyFileReplay {
        static func main() {
            FuzzReplay.main(seeds: KeyFileSeeds.all, harness: KeyFileHarness.run)
        }
    }
#endif
