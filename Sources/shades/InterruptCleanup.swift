import ShadesIO
#if canImport(Glibc)
import Glibc
#endif

/// On Ctrl-C or SIGTERM, remove any half-written temporary file before exiting, so an interrupted
/// render leaves nothing behind.
func installInterruptCleanup() {
    for signalNumber in [SIGINT, SIGTERM, SIGHUP] {
        signal(signalNumber) { received in
            AtomicFile.removeTemporaryFiles()
            _exit(128 + received)
        }
    }
}
