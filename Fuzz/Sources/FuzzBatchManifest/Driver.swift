import FuzzDriver

/// The executable's entry point (see FuzzDriver).
@_cdecl("FuzzBatchManifest_main")
public func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv) { start, size in fuzzOne(start, size) }
}
