import ShadesCatalogue
import ShadesDSP
import ShadesRender

extension CatalogueAsset {
    /// A catalogue sound as a stream: its source and its length.
    package struct Stream {
        /// The sound block by block: the samples the catalogue file holds before its loudness gain (and
        /// quantisation).
        package let source: any AudioSource
        /// Frames of the catalogue file (the source goes on past them: generators are endless, music and
        /// loops end in silence).
        package let frameCount: Int
        /// The tone frequency rendered (a loop adjusts it), Hz.
        package let renderedFrequencyHz: Double?
    }

    /// The sound as a stream through its ``SoundGraph``: a generator's signals at the reference level
    /// (exact, measured over the file's length as the file has it), a mix's layers each at it times their
    /// gains, a file as decoded and notched. Not real-time: the exact levels take a measuring pass first.
    package func makeStream() throws(ShadesError) -> Stream {
        let graph = try SoundGraph(referenceRequest)
        let frames = graph.playsFileToEnd ? graph.measure(meters: Array(repeating: SignalMeasurement(sumOfSquares: 0, peak: 0),
                                                                         count: graph.signalCount)).frames : graph.frames
        let gains = graph.layout == nil ? Array(repeating: Float(1), count: graph.signalCount) : graph.exactGains()
        return Stream(source: graph.makeSource(gains: gains), frameCount: frames, renderedFrequencyHz: graph.renderedFrequencyHz)
    }
}
