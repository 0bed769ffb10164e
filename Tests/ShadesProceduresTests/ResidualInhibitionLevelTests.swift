import Testing
import ShadesDSP
import ShadesRender
import ShadesProcedures

/// The minimum residual-inhibition level (issue 35; Fournier et al. 2018) driven by simulated tinnitus: the MML
/// and the MRIL land within one step of the simulated ones for steps of 1, 2 and 5 dB, the complete MRIL too; a
/// tinnitus never inhibited or never masked ends without one; bad settings are refused.
@Suite struct ResidualInhibitionLevelTests {
    @Test(arguments: [1.0, 2.0, 5.0])
    func theMRILIsFoundWithinAStep(stepDB: Double) throws {
        for masking in stride(from: -80.0, through: -45, by: 3.7) {
            for above in stride(from: 0.0, through: 20, by: 2.3) {
                let tinnitus = SimulatedInhibition(maskingLevelDBFS: masking, inhibitionLevelDBFS: masking + above, completeLevelDBFS: masking + above + 3)
                let result = tinnitus.run(try MinimumResidualInhibitionLevel(frequencyHz: 6_000, thresholdDBFS: -90, stepDB: stepDB))
                let mml = try #require(result.maskingLevelDBFS), mril = try #require(result.levelDBFS)
                #expect(mml >= masking && mml < masking + stepDB, "MML \(masking): \(mml)")
                // The MRIL is at or above the MML, within a step of the simulated one (or the MML itself when lower).
                let expected = max(masking + above, mml)
                #expect(mril >= expected && mril < expected + stepDB, "MRIL \(masking + above): \(mril) (MML \(mml))")
                let complete = try #require(result.completeLevelDBFS)
                #expect(complete >= masking + above + 3 && complete < masking + above + 3 + stepDB && result.trials.last?.silence == .gone)
                #expect(result.sensationLevelDB == mril + 90 && result.aboveMaskingDB == mril - mml)
                // Each trial one step above the one before, except the first silence question, at the MML.
                for (a, b) in zip(result.trials, result.trials.dropFirst()) {
                    #expect(b.levelDBFS - a.levelDBFS == (a.tinnitusHeard == false ? 0 : stepDB))
                }
            }
        }
    }

    @Test func noInhibitionOrNoMaskingEndsAtTheHighestLevel() throws {
        let none = SimulatedInhibition(maskingLevelDBFS: -50, inhibitionLevelDBFS: 10).run(try MinimumResidualInhibitionLevel(frequencyHz: 4_000, startDBFS: -60))
        #expect(none.maskingLevelDBFS == -50 && none.levelDBFS == nil && none.completeLevelDBFS == nil)
        #expect(none.trials.last?.levelDBFS == MinimumResidualInhibitionLevel.highestLevelDBFS && none.trials.last?.silence == .unchanged)
        let loud = SimulatedInhibition(maskingLevelDBFS: 0, inhibitionLevelDBFS: 0).run(try MinimumResidualInhibitionLevel(frequencyHz: 4_000, startDBFS: -30))
        #expect(loud.maskingLevelDBFS == nil && loud.levelDBFS == nil && loud.trials.allSatisfy { $0.tinnitusHeard == true })
        // Reduced but never gone: the MRIL without a complete one.
        let partial = SimulatedInhibition(maskingLevelDBFS: -50, inhibitionLevelDBFS: -44).run(try MinimumResidualInhibitionLevel(frequencyHz: 4_000, startDBFS: -60))
        #expect(partial.levelDBFS == -44 && partial.completeLevelDBFS == nil)
    }

    @Test func theBurstsArePulsesOfThePublishedShapes() throws {
        let triangle = MinimumResidualInhibitionLevel.Bursts(burstSeconds: 2, silenceSeconds: 3, envelope: .triangular)
        #expect(triangle.pulses == Pulses(onSeconds: 2, offSeconds: 3, rampSeconds: 1))
        let trapezoid = MinimumResidualInhibitionLevel.Bursts(burstSeconds: 2, silenceSeconds: 3, envelope: .trapezoidal, rampSeconds: 0.1)
        #expect(trapezoid.pulses == Pulses(onSeconds: 2, offSeconds: 3, rampSeconds: 0.1))
    }

    @Test func badSettingsAreRefused() {
        func refused(_ parameter: ParameterID, _ make: () throws -> Void) {
            do { try make(); Issue.record("\(parameter) accepted") } catch let error as ShadesError {
                #expect(error.parameter == parameter, "\(error)")
            } catch { Issue.record("\(error)") }
        }
        refused(.mrilStep) { _ = try MinimumResidualInhibitionLevel(frequencyHz: 6_000, stepDB: 3) }
        refused(.frequency) { _ = try MinimumResidualInhibitionLevel(frequencyHz: 30_000) }
        refused(.width) { _ = try MinimumResidualInhibitionLevel(frequencyHz: 6_000, widthOctaves: 4) }
        refused(.startLevel) { _ = try MinimumResidualInhibitionLevel(frequencyHz: 6_000, startDBFS: -5) }
        refused(.burst) { _ = try MinimumResidualInhibitionLevel(frequencyHz: 6_000, bursts: .init(burstSeconds: 20, silenceSeconds: 3, envelope: .triangular)) }
        refused(.burstSilence) { _ = try MinimumResidualInhibitionLevel(frequencyHz: 6_000, bursts: .init(burstSeconds: 2, silenceSeconds: 0.1, envelope: .triangular)) }
        refused(.burstRamp) { _ = try MinimumResidualInhibitionLevel(frequencyHz: 6_000, bursts: .init(burstSeconds: 2, silenceSeconds: 2, envelope: .trapezoidal, rampSeconds: 1.5)) }
    }
}
