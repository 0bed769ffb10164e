import ShadesDSP
import ShadesIO

/// The modifiers of a sound over its base, each added by its descriptor (``ModifierKind/apply(_:to:)``) in
/// the one order of ``Sound/modifierKinds``: notches → spectral shape → amplitude modulation (together the
/// *sustained* sound, what the level refers to) → pulses → fades. The same chain serves a generator's
/// signals (mono streams, each filter primed by its source) and the one multichannel group of a mix or a
/// file (filters aligned to a silent past, so the output is sample-aligned).
package struct ModifierChain {
    /// A fresh source of group `g`, and the file it reads (nil for a generator or a mix).
    typealias Make = @Sendable (_ group: Int) -> (source: any AudioSource, file: AudioFileSource?)

    /// How the notches and the shape meet their source; their filters are designed by the graph (one per
    /// signal or channel, or none where a generator synthesised whole took them into its spectrum).
    enum Filters {
        /// Mono streams: `notches[s]` for signal s, primed by the source, so the band is gone from frame 0.
        case primedBySource(notches: [NotchDesign]?, shape: NotchDesign?)
        /// One multichannel group: one notch design per channel; the filter delay removed over a silent past.
        case alignedToSilentPast(notches: [NotchDesign]?, shape: NotchDesign?)
    }

    /// The request made (validated) and its frames.
    package let request: RenderRequest
    package let frames: Int
    /// Notes for the user (a loop's adjusted modulation rate).
    package var notes: [String]
    /// The modulation rate applied (a loop adjusts it), Hz; nil without modulation.
    package var modulationRateHz: Double?
    /// True when a stage after the filters changes the sustained sound's level over time (modulation): the
    /// sound is then measured, not known.
    package private(set) var reshapesLevel = false
    /// How much those stages multiply the relative scatter of a stream's measured power (AM: √2), nil when
    /// unknown (random envelopes: the sound is measured).
    package private(set) var powerScatterFactor: Double? = 1
    private let filters: Filters
    /// The sustained sound of each group: its level is the asked one.
    private(set) var sustained: Make
    /// The envelopes over the sustained sound (pulses, fades), nil without any.
    private var envelopes: Make?
    /// Each group as written: the sustained sound with pulses and fades.
    var final: Make { envelopes ?? sustained }

    /// The chain of `sound`'s modifiers over `base` for `request` (validated) of `frames` frames.
    init(base: @escaping Make, filters: Filters, sound: Sound, request: RenderRequest, frames: Int, notes: [String]) throws(ShadesError) {
        (self.request, self.frames, self.notes, self.filters, sustained) = (request, frames, notes, filters, base)
        // The filters first, as the graph designed them: the notches' and the shape's, or what a generator left
        // of them (one synthesised whole takes them; a streamed curve adds its own to the shape).
        applyNotches()
        applyShape()
        for kind in Sound.modifierKinds { try kind.apply(sound, to: &self) }
    }

    /// Adds a stage of the sustained sound that changes its level over time: `wrap` of each group's source,
    /// which multiplies the relative scatter of a stream's measured power by `scatterFactor` (nil: unknown).
    package mutating func sustain(scatterFactor: Double?, _ wrap: @escaping @Sendable (any AudioSource) -> any AudioSource) {
        reshapesLevel = true
        powerScatterFactor = scatterFactor.flatMap { factor in powerScatterFactor.map { $0 * factor } }
        let inner = sustained
        sustained = { g in
            let (source, file) = inner(g)
            return (wrap(source), file)
        }
    }

    /// Adds an envelope over the sustained sound (after the stages that set the level).
    package mutating func envelope(_ wrap: @escaping @Sendable (any AudioSource) -> any AudioSource) {
        let inner = final
        envelopes = { g in
            let (source, file) = inner(g)
            return (wrap(source), file)
        }
    }

    /// Adds the notch filters the graph designed (none when a generator took them into its spectrum).
    private mutating func applyNotches() {
        switch filters {
        case .primedBySource(let notches?, _): addFilter { s, source in try! NotchedSource(source: source, design: notches[s], primedBySource: true) }
        case .alignedToSilentPast(let notches?, _): addFilter { _, source in try! NotchedSource(source: source, designs: notches, alignment: .silentPast) }
        default: break
        }
    }

    /// Adds the spectral shape's filter the graph designed (none when a generator took it into its spectrum).
    private mutating func applyShape() {
        switch filters {
        case .primedBySource(_, let shape?): addFilter { _, source in try! NotchedSource(source: source, design: shape, primedBySource: true) }
        case .alignedToSilentPast(_, let shape?): addFilter { _, source in try! NotchedSource(source: source, design: shape, alignment: .silentPast) }
        default: break
        }
    }

    /// A filter stage of the sustained sound: `wrap` of group (or signal) `g`'s source.
    private mutating func addFilter(_ wrap: @escaping @Sendable (_ group: Int, any AudioSource) -> any AudioSource) {
        let inner = sustained
        sustained = { g in
            let (source, file) = inner(g)
            return (wrap(g, source), file)
        }
    }
}
