/// Anything that renders audio block by block: generators, and modifiers wrapping another source.
///
/// The contract every source keeps:
/// - `render(into:)` overwrites the block with the next `block.frameCount` frames at `sampleRate`;
/// - it allocates nothing and takes no locks, so a real-time audio callback may call it;
/// - rendering in blocks of any sizes gives bit-identical samples to rendering in one call;
/// - before it renders on a real-time thread it is prepared (``prepareForRealTime(_:)``); from then on a
///   render call also never waits (a file's reader behind: silence, counted).
public protocol AudioSource: AnyObject {
    /// Sample rate in Hz (8,000 … 192,000).
    var sampleRate: Double { get }
    /// Channels rendered by each call.
    var channelCount: Int { get }
    /// Renders the next `block.frameCount` frames into `block` (whose channel count must match).
    func render(into block: AudioBlock)
    /// Readies the source for a real-time render thread (see ``RealTimePreparation``): called once on the
    /// control thread before the first real-time render call. A modifier prepares its sources first, then
    /// itself; a source with nothing to prepare does nothing.
    func prepareForRealTime(_ preparation: RealTimePreparation)
}

extension AudioSource {
    /// Renders `frameCount` frames into a new buffer (not real-time: allocates the buffer).
    package func renderBuffer(frameCount: Int) -> AudioBuffer {
        let buffer = AudioBuffer(channelCount: channelCount, frameCapacity: frameCount)
        buffer.withBlock { render(into: $0) }
        return buffer
    }
}

/// The supported range of sample rates, in Hz.
package let supportedSampleRates: ClosedRange<Double> = 8_000...192_000
