import CInterrupts
import ShadesIO
import ShadesPlatform
import Synchronization

/// Ctrl-C, SIGTERM and SIGHUP: by default the run is ended on the interrupt watcher's thread (CInterrupts:
/// the handler itself only stores the signal and writes to a pipe) after ``InterruptCleanup`` has removed
/// what the run made, so an interrupted render, notch, stimuli set or catalogue build leaves the previous
/// output and nothing else; exit status 128 + the signal. A command that ends by itself on an interrupt
/// (`play`: a short fade) calls ``InterruptHandling/handOverToCommand()`` and polls
/// ``InterruptHandling/takeRequest()``.
func installInterruptCleanup() {
    let signals = [SIGINT, SIGTERM, SIGHUP]
    _ = signals.withUnsafeBufferPointer { list in
        shades_interrupts_install(list.baseAddress, Int32(list.count)) { signalNumber in
            guard !InterruptHandling.commandHandles.load(ordering: .acquiring) else { return }
            InterruptCleanup.removeEverythingAndExit(signal: signalNumber)
        }
    }
}

enum InterruptHandling {
    /// Set by a command that ends by itself on an interrupt.
    static let commandHandles = Atomic<Bool>(false)

    /// From now on an interrupt does not end the process: the command polls ``takeRequest()``.
    static func handOverToCommand() { commandHandles.store(true, ordering: .releasing) }

    /// True once per interrupt received since the last call.
    static func takeRequest() -> Bool { shades_interrupts_take() != 0 }
}
