import FuzzSupport
import ShadesDSP
import ShadesRender

/// The text forms users type: durations, frequencies, levels, loudness and microphone calibrations.
/// Any text either parses to a finite value or is refused with an error naming the parameter.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzValueParsing(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = FuzzInput(data, size)
    let text = String(decoding: input.bytes, as: UTF8.self)
    let parsers: [(String, (String) throws(ShadesError) -> Double)] = [
        ("duration", { text throws(ShadesError) in try ValueParsing.seconds(text) }),
        ("frequency", { text throws(ShadesError) in try ValueParsing.hertz(text) }),
        ("level", { text throws(ShadesError) in try ValueParsing.decibels(text) }),
        ("loudness", { text throws(ShadesError) in try ValueParsing.loudness(text) }),
    ]
    for (parameter, parse) in parsers {
        do throws(ShadesError) {
            let value = try parse(text)
            require(value.isFinite, "\(parameter) '\(text)' parsed to \(value)")
        } catch {
            require(error.parameter?.rawValue == parameter, "\(parameter) '\(text)': error names '\(error.parameter?.rawValue ?? "none")'")
            require(!error.description.isEmpty, "\(parameter) '\(text)': empty message")
        }
    }
    do throws(ShadesError) {
        let calibration = try SPLCalibration(parsing: text)
        require(calibration.offsetDB.isFinite, "calibration '\(text)' gave offset \(calibration.offsetDB)")
    } catch {
        require(!error.description.isEmpty, "calibration '\(text)': empty message")
    }
    return 0
}
