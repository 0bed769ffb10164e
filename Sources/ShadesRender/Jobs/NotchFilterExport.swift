#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ShadesDSP
import ShadesIO

/// A notch for everything a Linux desktop plays: the notch's impulse response as a float WAV and a
/// PipeWire filter-chain configuration whose builtin convolver applies it to both channels of a virtual
/// sink. Desktop notch tools use shallow IIR notches (an RBJ biquad cuts only −2.7 dB at the edges of "one
/// octave"); this is the same linear-phase Kaiser kernel `shades notch` uses, ≥ 110 dB deep by design.
///
/// Latency: the kernel is symmetric with 2M + 1 taps, so it delays the sound by M frames
/// (``NotchDesign/groupDelayFrames``), plus whatever block the convolver works in.
package enum NotchFilterExport {
    /// The kernel's 2M + 1 taps as Float: h[M ± k] = halfTaps[k].
    package static func impulseResponse(of design: NotchDesign) -> [Float] {
        let m = design.halfLength
        return (0...(2 * m)).map { Float(design.halfTaps[abs($0 - m)]) }
    }

    /// Writes the impulse response of `design` to `path` as a mono 32-bit float WAV at its rate, atomically.
    package static func writeImpulseResponse(of design: NotchDesign, to path: String) throws(ShadesError) {
        let taps = impulseResponse(of: design)
        let buffer = AudioBuffer(channelCount: 1, frameCapacity: taps.count)
        buffer.withChannel(0) { _ = $0.update(fromContentsOf: taps) }
        let comment = "\(AudioFileWriter.software) notch-filter impulse response notch=\(design.notches.summaryText) rate=\(formatNumber(design.sampleRate)) taps=\(taps.count) latency=\(design.groupDelayFrames)"
        try FileSink.write(buffer, sampleRate: Int(design.sampleRate), gains: [1], to: path, sampleFormat: .f32,
                           ditherKey: 0, comment: comment)
    }

    /// A PipeWire filter-chain configuration, complete in itself: `pipewire -c FILE` (FILE absolute) runs it as
    /// a client of the running PipeWire, adding a stereo virtual sink named after the notch whose two builtin
    /// convolvers load `impulseResponsePath` (absolute). It carries the client modules the filter chain needs
    /// (native protocol, client node, adapter), as PipeWire's own `filter-chain.conf` does: Debian 12's
    /// PipeWire 0.3.65 ships no `filter-chain.conf`, and the filter-chain module alone cannot connect.
    /// Those modules are `nofail`: copied into `pipewire.conf.d` instead, the file still loads in the daemon,
    /// which has them already (without the flag PipeWire 0.3.65 does not start: "could not load mandatory
    /// module libpipewire-module-client-node: File exists"). Tested in a real PipeWire 0.3.65
    /// (`PipeWireNotchTests`). `configurationPath` (absolute) is where it is written, named in its usage comment.
    /// With a `profile` the impulse response is its stereo one (left ear, right ear), each convolver loads its
    /// own channel, and the sink is named a hearing profile.
    package static func pipeWireConfiguration(impulseResponsePath: String, configurationPath: String, design: NotchDesign,
                                              profile: HearingProfileFilter? = nil) -> String {
        let perEar = profile != nil
        let latencyFrames = profile?.latencyFrames ?? design.groupDelayFrames
        let name = (perEar ? "shades_profile_" : "shades_notch_") + design.notches.map { formatNumber($0.centreHz.rounded()) + "Hz" }.joined(separator: "_")
        let description = (perEar ? "Shades hearing profile, notch " : "Shades notch ") + design.notches.summaryText
        let path = impulseResponsePath.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        let own = configurationPath.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
        return """
            # \(description): a stereo virtual sink that \(perEar ? "shapes each ear and removes the band from" : "removes the band from") everything played into it.
            # Made by \(AudioFileWriter.software); latency \(latencyFrames) frames (\(formatNumber(Double(latencyFrames) / design.sampleRate * 1000, roundedTo: 2)) ms) at \(formatNumber(design.sampleRate)) Hz plus the convolver's block.
            # Use: `pipewire -c \(configurationPath)` (a client of the running PipeWire; the sink is there while
            # it runs), then choose "\(description)" as the output. To start it with PipeWire, put
            #   context.exec = [ { path = "pipewire" args = "-c \(own)" } ]
            # into ~/.config/pipewire/pipewire.conf.d/shades-notch.conf and restart PipeWire (or copy this file
            # there: it then runs inside PipeWire itself).
            # The impulse response stays where it is: \(path)
            context.spa-libs = {
                audio.convert.* = audioconvert/libspa-audioconvert
                support.*       = support/libspa-support
            }
            context.modules = [
                { name = libpipewire-module-rt flags = [ ifexists nofail ] }
                { name = libpipewire-module-protocol-native flags = [ nofail ] }
                { name = libpipewire-module-client-node flags = [ nofail ] }
                { name = libpipewire-module-adapter flags = [ nofail ] }
                { name = libpipewire-module-filter-chain
                    args = {
                        node.description = "\(description)"
                        media.name       = "\(description)"
                        filter.graph = {
                            nodes = [
                                { type = builtin label = convolver name = notchL config = { filename = "\(path)" channel = 0 } }
                                { type = builtin label = convolver name = notchR config = { filename = "\(path)" channel = \(perEar ? 1 : 0) } }
                            ]
                            inputs  = [ "notchL:In" "notchR:In" ]
                            outputs = [ "notchL:Out" "notchR:Out" ]
                        }
                        audio.rate     = \(Int(design.sampleRate))
                        audio.channels = 2
                        audio.position = [ FL FR ]
                        capture.props = {
                            node.name   = "effect_input.\(name)"
                            media.class = Audio/Sink
                        }
                        playback.props = {
                            node.name    = "effect_output.\(name)"
                            node.passive = true
                        }
                    }
                }
            ]

            """
    }
}
