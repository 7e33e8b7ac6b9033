import LanChatFuzzSupport

/// libFuzzer entry point: the TXT strings of one `_lanchat._tcp` record (input layout in
/// `TXTRecordHarness`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTXTRecord(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    TXTRecordHarness.run(FuzzInput(data, size).bytes)
    return 0
}

#if !LANCHAT_LIBFUZZER
    /// Without libFuzzer (the ordinary build): replay inputs from disk, or write the seeds.
    @main enum FuzzTXTRecordReplay {
        static func main() {
            FuzzReplay.main(seeds: TXTRecordSeeds.all, harness: TXTRecordHarness.run)
        }
    }
#endif
