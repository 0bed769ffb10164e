import ShadesIO
import ShadesPlatform

/// On Ctrl-C or SIGTERM, remove any half-written temporary file before exiting, so an interrupted
/// render leaves nothing behind.
func installInterruptCleanup() {
    let signals = [SIGINT, SIGTERM, SIGHUP]
    for signalNumber in signals {
        signal(signalNumber) { received in
            AtomicFile.removeTemporaryFiles()
            _exit(128 + received)
        }
    }
    // A blocked signal mask is inherited from the parent (a test runner's or service manager's thread):
    // unblock these so Ctrl-C is not held pending until the run ends. Threads started later inherit it.
    var set = sigset_t()
    sigemptyset(&set)
    for signalNumber in signals { sigaddset(&set, signalNumber) }
    pthread_sigmask(SIG_UNBLOCK, &set, nil)
}
