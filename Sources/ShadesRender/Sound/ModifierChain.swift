import ShadesDSP
import ShadesIO

/// The modifiers of a sound over its base, in their one order: notches → spectral shape → amplitude
/// modulation (together the *sustained* sound, what the level refers to) → pulses → fades. The same chain
/// serves a generator's signals (mono streams, each filter primed by its source) and the one multichannel
/// group of a mix or a file (filters aligned to a silent past, so the output is sample-aligned).
struct ModifierChain {
    /// A fresh source of group `g`, and the file it reads (nil for a generator or a mix).
    typealias Make = @Sendable (_ group: Int) -> (source: any AudioSource, file: AudioFileSource?)

    /// How the notches and the shape meet their source.
    enum Filters {
        /// Mono streams: `notches[s]` for signal s, primed by the source, so the band is gone from frame 0.
        case primedBySource(notches: [NotchDesign]?, shape: NotchDesign?)
        /// One multichannel group: one notch design per channel; the filter delay removed over a silent past.
        case alignedToSilentPast(notches: [NotchDesign]?, shape: NotchDesign?)
    }

    /// The sustained sound of each group: its level is the asked one.
    let sustained: Make
    /// Each group as written: the sustained sound with pulses and fades.
    let final: Make
    /// The modulation rate applied (a loop adjusts it), Hz; nil without modulation.
    let modulationRateHz: Double?

    /// The chain over `base` for `request` (validated) of `frames` frames; a loop's modulation rate is
    /// adjusted to whole cycles with a note in `notes`.
    init(base: @escaping Make, filters: Filters, modulation: Modulation?, pulses: Pulses?, fades: Fades?,
         request: RenderRequest, frames: Int, notes: inout [String]) throws(ShadesError) {
        let rate = request.sampleRate
        var sustained = base
        switch filters {
        case .primedBySource(let notches, let shape):
            if let notches {
                let inner = sustained
                sustained = { s in (try! NotchedSource(source: inner(s).source, design: notches[s], primedBySource: true), nil) }
            }
            if let shape {
                let inner = sustained
                sustained = { s in (try! NotchedSource(source: inner(s).source, design: shape, primedBySource: true), nil) }
            }
        case .alignedToSilentPast(let notches, let shape):
            if let notches {
                let inner = sustained
                sustained = { g in
                    let (source, file) = inner(g)
                    return (try! NotchedSource(source: source, designs: notches, alignment: .silentPast), file)
                }
            }
            if let shape {
                let inner = sustained
                sustained = { g in
                    let (source, file) = inner(g)
                    return (try! NotchedSource(source: source, design: shape, alignment: .silentPast), file)
                }
            }
        }
        var modulationRateHz: Double?
        if let modulation {
            let appliedHz = try modulation.appliedRateHz(loopFrames: request.loop ? frames : nil, sampleRate: rate, notes: &notes)
            modulationRateHz = appliedHz
            let inner = sustained
            sustained = { g in
                let (source, file) = inner(g)
                return (try! AmplitudeModulatedSource(carrier: source, rateHz: appliedHz, depth: modulation.depth,
                                                      startPhase: modulation.startPhase, keep: .rms), file)
            }
        }
        var final = sustained
        if let pulses {
            let inner = final
            final = { g in
                let (source, file) = inner(g)
                return (try! PulsedSource(source: source, onSeconds: pulses.onSeconds, offSeconds: pulses.offSeconds,
                                          rampSeconds: pulses.rampSeconds, pulseCount: pulses.count), file)
            }
        }
        if let fades {
            let inner = final
            let soundFrames = fades.soundFrames(sampleRate: rate, frames: frames)
            final = { g in
                let (source, file) = inner(g)
                return (try! FadedSource(source: source, fadeInSeconds: fades.inSeconds, fadeOutSeconds: fades.outSeconds,
                                         totalFrames: soundFrames), file)
            }
        }
        (self.sustained, self.final, self.modulationRateHz) = (sustained, final, modulationRateHz)
    }
}
