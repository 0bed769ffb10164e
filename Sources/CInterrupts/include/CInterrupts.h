// SIGINT, SIGTERM and SIGHUP turned into a call on a normal thread. The handler does only what a signal
// handler may (POSIX's async-signal-safe list): it stores the signal number in an atomic and writes one
// byte to a pipe. A watcher thread blocked on the pipe then calls the program's function, where taking
// locks, allocating and removing files are allowed.
#ifndef SHADES_INTERRUPTS_H
#define SHADES_INTERRUPTS_H

/// Installs the handler for the `count` signals in `signals` (unblocked in the calling thread, which
/// threads started later inherit) and starts the watcher thread, which calls `on_signal` with each
/// signal's number as it arrives. Returns 0, or -1 when the pipe or the thread cannot be made.
int shades_interrupts_install(const int *signals, int count, void (*on_signal)(int signal_number));

/// The last signal received since the previous call (0: none), cleared.
int shades_interrupts_take(void);

#endif
