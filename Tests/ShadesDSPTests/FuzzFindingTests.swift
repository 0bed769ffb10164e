import Testing
import CHeapStatistics
import ShadesDSP

/// What the fuzzers found in ShadesDSP (Fuzz/, `make fuzz`); each input is also in Fuzz/Corpus/.
@Suite struct FuzzFindingTests {
    /// FuzzPresetParser, `leak-fade-longer-than-sound.json`: a fade or pulse check that failed leaked the
    /// 1 KB gain buffer of its envelope (a class whose initialiser throws never runs its `deinit`).
    /// LeakSanitizer found it; here the heap must not grow by the 10 MB that 5,000 leaks of both add (glibc's
    /// figures; under a sanitizer's allocator they stay 0 and LeakSanitizer checks instead).
    @Test func aFailedFadeOrPulseCheckFreesItsBuffer() throws {
        func failChecks(_ count: Int) {
            for _ in 0..<count {
                _ = try? FadedSource(source: SilenceSource(), fadeInSeconds: 2, fadeOutSeconds: 0, totalFrames: 48_000)
                _ = try? PulsedSource(source: SilenceSource(), onSeconds: 0.1, offSeconds: 0.1, rampSeconds: 0.2)
            }
        }
        #expect(throws: ShadesError.self) { try FadedSource(source: SilenceSource(), fadeInSeconds: 2, fadeOutSeconds: 0, totalFrames: 48_000) }
        #expect(throws: ShadesError.self) { try PulsedSource(source: SilenceSource(), onSeconds: 0.1, offSeconds: 0.1, rampSeconds: 0.2) }
        failChecks(100)
        var growth: [Int] = []
        for _ in 0..<5 {
            let before = Int(shades_heap_bytes_in_use())
            failChecks(5_000)
            growth.append(Int(shades_heap_bytes_in_use()) - before)
        }
        // Other tests allocate at the same time: the median of five rounds.
        #expect(growth.sorted()[2] < 2_000_000, "heap grew by \(growth) bytes in rounds of 5,000 failed checks")
    }
}
