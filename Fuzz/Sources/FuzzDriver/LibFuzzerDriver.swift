// SwiftPM links each fuzz executable with its `main` renamed to `<Target>_main`, so libFuzzer's own
// `main` is not used; every target's entry point calls this to hand control to libFuzzer's driver.
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// Runs libFuzzer with the process's arguments, calling `testOneInput` for every input.
public func runLibFuzzer(
    _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
    _ testOneInput: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments, testOneInput)
}
