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
    /// Refuses, rather than let PortAudio abort, where ALSA has neither a card nor a configuration.
    static func initialize() throws(ShadesError) {
        shades_alsa_silence()
        guard shades_alsa_has_devices() != 0 else {
            throw .runtime("no audio device: no sound card and no ALSA configuration (/usr/share/alsa/alsa.conf or ALSA_CONFIG_PATH), as on a cluster node")
        }
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

    /// PortAudio's devices with channels in `Device`'s direction; PortAudio must be initialised.
    static func devices<Device: PortAudioDevice>(_: Device.Type = Device.self) -> [Device] {
        let defaultIndex = defaultDevice(Device.direction)
        return (0..<max(0, Pa_GetDeviceCount())).compactMap { i -> Device? in
            guard let info = Pa_GetDeviceInfo(i)?.pointee,
                  (Device.direction == .input ? info.maxInputChannels : info.maxOutputChannels) > 0 else { return nil }
            let hostAPI = Pa_GetHostApiInfo(info.hostApi).map { String(cString: $0.pointee.name) } ?? "?"
            return Device(index: Int(i), info: info, hostAPI: hostAPI, isDefault: i == defaultIndex)
        }
    }

    /// ``devices(_:)`` with PortAudio initialised for just that time. Throws a runtime error when PortAudio
    /// cannot start.
    static func listDevices<Device: PortAudioDevice>() throws(ShadesError) -> [Device] {
        try initialize()
        defer { Pa_Terminate() }
        return devices()
    }

    /// PortAudio's default device for `direction` (`paNoDeviceIndex` when there is none).
    private static func defaultDevice(_ direction: PortAudioStream.Direction) -> PaDeviceIndex {
        direction == .input ? Pa_GetDefaultInputDevice() : Pa_GetDefaultOutputDevice()
    }

    /// The device `choice` names among PortAudio's devices of `Device`'s direction; the errors list them.
    static func choose<Device: PortAudioDevice>(_ choice: OutputDeviceChoice) throws(ShadesError) -> Device {
        let listed: [Device] = devices(), kind = Device.direction.rawValue
        let defaultIndex = defaultDevice(Device.direction)
        let tried = "\(String(cString: Pa_GetVersionText())), host APIs: \(hostAPINames().joined(separator: ", "))"
        guard !listed.isEmpty else {
            throw .runtime("no audio \(kind) device (\(tried); for PulseAudio set XDG_RUNTIME_DIR or PULSE_SERVER)")
        }
        let names = listed.map { "\($0.index) '\($0.name)'" }.joined(separator: ", ")
        switch choice {
        case .systemDefault:
            guard defaultIndex != paNoDeviceIndex, let device = listed.first(where: { $0.index == Int(defaultIndex) }) else {
                throw .runtime("no default audio \(kind) device (\(tried); devices: \(names))")
            }
            return device
        case .index(let wanted):
            guard let device = listed.first(where: { $0.index == wanted }) else {
                throw ShadesError(.device, .other("is not an \(kind) device here"), value: .text("\(wanted)"),
                                  allowed: AllowedValues(note: names))
            }
            return device
        case .name(let text):
            guard let device = listed.first(where: { $0.name.lowercased().contains(text.lowercased()) }) else {
                throw ShadesError(.device, .other("is not an \(kind) device here"), value: .text("'\(text)'"),
                                  allowed: AllowedValues(note: names))
            }
            return device
        }
    }
}

/// A device as one direction of PortAudio sees it (``InputDevice``, ``OutputDevice``): what listing and
/// choosing need.
protocol PortAudioDevice {
    /// Which way its samples go.
    static var direction: PortAudioStream.Direction { get }
    /// The device `index` from PortAudio's record of it (`Pa_GetDeviceInfo`) and its host API's name;
    /// `isDefault` for the direction's default device.
    init(index: Int, info: PaDeviceInfo, hostAPI: String, isDefault: Bool)
    /// PortAudio's device index.
    var index: Int { get }
    var name: String { get }
}
