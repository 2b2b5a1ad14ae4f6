import EfferentFuzzing

#if EFFERENT_FUZZ
/// libFuzzer entry point (built by scripts/fuzz with -sanitize=fuzzer -DEFFERENT_FUZZ).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzIndex(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    FuzzEntry.index(unsafe Array(UnsafeBufferPointer(start: data, count: count)))
    return 0
}

/// SwiftPM links an executable's entry point as `<target>_main`; hand the process to libFuzzer.
@_cdecl("fuzz_index_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    unsafe FuzzDriver.run(argc, argv, fuzzIndex)
}
#else
/// Without libFuzzer: replays the files named on the command line (a crash reproducer).
@main struct FuzzIndex {
    static func main() { FuzzReplay.run(FuzzEntry.index) }
}
#endif
