import CPortAudio
import CALSAQuiet
import ShadesDSP
import ShadesPlatform

// With PortAudioStream.swift, AudioInput.swift and AudioOutput.swift, the only files that call PortAudio
// (CPortAudio). Its flag macros are casts, which Swift does not import: their values from portaudio.h (v19).
let paFloat32Format: PaSampleFormat = 0x0000_0001
let paNonInterleavedFormat: PaSampleFormat = 0x8000_0000
let paClipOffFlag: PaStreamFlags = 0x0000_0001
let paNoDeviceIndex: PaDeviceIndex = -1

/// PortAudio's library calls outside a stream.
enum PortAudioLibrary {
    /// `Pa_Initialize`, its ALSA card-probing and JACK messages silenced (ALSA's for good: its
    /// "underrun occurred" lines while playing too; underruns are counted instead).
    static func initialize() throws(ShadesError) {
        shades_alsa_silence()
        let error = quietly { Pa_Initialize() }
        guard error == paNoError.rawValue else { throw .runtime("cannot start PortAudio: \(text(error))") }
    }

    /// `Pa_GetErrorText`.
    static func text(_ error: PaError) -> String { String(cString: Pa_GetErrorText(error)) }

    /// Runs `body` with standard error pointed at /dev/null: PortAudio's ALSA and JACK back ends print
    /// dozens of harmless probing lines while they look for devices (seen on every start). ALSA's go to
    /// a handler that drops them (CALSAQuiet); JACK's client library has no such switch here.
    static func quietly<R>(_ body: () -> R) -> R {
        let saved = dup(2)
        let null = Platform.open("/dev/null", O_WRONLY, 0)
        if saved >= 0 && null >= 0 { dup2(null, 2) }
        defer {
            if saved >= 0 { dup2(saved, 2); close(saved) }
            if null >= 0 { close(null) }
        }
        return body()
    }

    static func hostAPINames() -> [String] {
        (0..<max(0, Pa_GetHostApiCount())).compactMap { Pa_GetHostApiInfo($0).map { String(cString: $0.pointee.name) } }
    }

    /// PortAudio's devices that `make` keeps (index, info, host API name → a device or nil).
    static func devices<Device>(_ make: (PaDeviceIndex, PaDeviceInfo, String) -> Device?) -> [Device] {
        (0..<max(0, Pa_GetDeviceCount())).compactMap { i -> Device? in
            guard let info = Pa_GetDeviceInfo(i)?.pointee else { return nil }
            return make(i, info, Pa_GetHostApiInfo(info.hostApi).map { String(cString: $0.pointee.name) } ?? "?")
        }
    }

    static func outputDevices() -> [OutputDevice] {
        let defaultIndex = Pa_GetDefaultOutputDevice()
        return devices { i, info, api in
            guard info.maxOutputChannels > 0 else { return nil }
            return OutputDevice(index: Int(i), name: String(cString: info.name), hostAPI: api,
                                maximumOutputChannels: Int(info.maxOutputChannels), defaultSampleRate: info.defaultSampleRate,
                                defaultLowLatencySeconds: info.defaultLowOutputLatency, isDefault: i == defaultIndex)
        }
    }

    static func choose(_ choice: OutputDeviceChoice) throws(ShadesError) -> OutputDevice {
        try choose(choice, among: outputDevices(), index: \.index, name: \.name, defaultIndex: Pa_GetDefaultOutputDevice(), kind: "output")
    }

    /// The device `choice` names among `devices` (input or output, `kind`); the errors list the devices.
    static func choose<Device>(_ choice: OutputDeviceChoice, among devices: [Device], index: (Device) -> Int, name: (Device) -> String,
                               defaultIndex: PaDeviceIndex, kind: String) throws(ShadesError) -> Device {
        let tried = "\(String(cString: Pa_GetVersionText())), host APIs: \(hostAPINames().joined(separator: ", "))"
        guard !devices.isEmpty else {
            throw .runtime("no audio \(kind) device (\(tried); for PulseAudio set XDG_RUNTIME_DIR or PULSE_SERVER)")
        }
        let names = devices.map { "\(index($0)) '\(name($0))'" }.joined(separator: ", ")
        switch choice {
        case .systemDefault:
            guard defaultIndex != paNoDeviceIndex, let device = devices.first(where: { index($0) == Int(defaultIndex) }) else {
                throw .runtime("no default audio \(kind) device (\(tried); devices: \(names))")
            }
            return device
        case .index(let wanted):
            guard let device = devices.first(where: { index($0) == wanted }) else {
                throw ShadesError(.device, .other("is not an \(kind) device here"), value: .text("\(wanted)"),
                                  allowed: AllowedValues(note: names))
            }
            return device
        case .name(let text):
            guard let device = devices.first(where: { name($0).lowercased().contains(text.lowercased()) }) else {
                throw ShadesError(.device, .other("is not an \(kind) device here"), value: .text("'\(text)'"),
                                  allowed: AllowedValues(note: names))
            }
            return device
        }
    }
}
