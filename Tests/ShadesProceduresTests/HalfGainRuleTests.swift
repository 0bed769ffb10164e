import Testing
import ShadesDSP
import ShadesRender
import ShadesProcedures

/// A spectral shape from an audiogram (issue 22): the half-gain rule of one ear's thresholds in dB HL.
@Suite struct HalfGainRuleTests {
    static let audiogram = Audiogram(scale: .hearingLevel, left: nil, right: [
        .init(frequencyHz: 250, thresholdDB: -5), .init(frequencyHz: 1000, thresholdDB: 20), .init(frequencyHz: 4000, thresholdDB: 50),
        .init(frequencyHz: 8000, thresholdDB: 80), .init(frequencyHz: 12000, thresholdDB: nil)])

    @Test func halfGainRule() throws {
        let shape = try SpectralShape.halfGain(Self.audiogram, ear: .right)
        // Half the threshold, none below 0 dB HL, at most 30 dB; an unmeasured frequency is left out.
        #expect(shape.frequenciesHz == [250, 1000, 4000, 8000] && shape.gainsDB == [0, 10, 25, 30])
        #expect(abs(shape.gainDB(atHz: 2000) - 17.5) < 1e-12 && shape.gainDB(atHz: 100) == 0 && shape.gainDB(atHz: 16_000) == 30)
        #expect(try SpectralShape.halfGain(Self.audiogram, ear: .right, maximumGainDB: 20).gainsDB == [0, 10, 20, 20])
        #expect(throws: ShadesError.self) { try SpectralShape.halfGain(Self.audiogram, ear: .left) }
        let plain = Audiogram(scale: .fullScale, left: [.init(frequencyHz: 1000, thresholdDB: -70)], right: nil)
        #expect(throws: ShadesError.self) { try SpectralShape.halfGain(plain, ear: .left) }
    }
}
