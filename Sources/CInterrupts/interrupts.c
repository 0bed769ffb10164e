#include "CInterrupts.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static int pipe_ends[2] = {-1, -1};
static atomic_int pending;
static void (*callback)(int);

/// The handler: an atomic store and a write(2), both async-signal-safe; errno kept for the interrupted code.
static void handle(int signal_number) {
    int saved = errno;
    atomic_store(&pending, signal_number);
    unsigned char byte = (unsigned char)signal_number;
    ssize_t written = write(pipe_ends[1], &byte, 1);
    (void)written;   // a full pipe already holds a wake-up
    errno = saved;
}

static void *watch(void *unused) {
    (void)unused;
    for (;;) {
        unsigned char byte;
        ssize_t n = read(pipe_ends[0], &byte, 1);
        if (n == 1) callback(byte);
        else if (n == 0 || (n < 0 && errno != EINTR)) return 0;
    }
}

int shades_interrupts_install(const int *signals, int count, void (*on_signal)(int)) {
    if (pipe(pipe_ends) != 0) return -1;
    fcntl(pipe_ends[0], F_SETFD, FD_CLOEXEC);
    fcntl(pipe_ends[1], F_SETFD, FD_CLOEXEC);
    fcntl(pipe_ends[1], F_SETFL, O_NONBLOCK);
    callback = on_signal;
    // The watcher first, with every signal blocked so the handler runs on another thread, not on it
    // between a read and the callback.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &previous);
    pthread_t thread;
    int started = pthread_create(&thread, 0, watch, 0);
    pthread_sigmask(SIG_SETMASK, &previous, 0);
    if (started != 0) return -1;
    pthread_detach(thread);
    struct sigaction action;
    action.sa_handler = handle;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    sigset_t these;
    sigemptyset(&these);
    for (int i = 0; i < count; i++) {
        sigaction(signals[i], &action, 0);
        sigaddset(&these, signals[i]);
    }
    // A blocked mask is inherited from the parent (a test runner's or service manager's thread): unblock
    // these so Ctrl-C is not held pending until the run ends. Threads started later inherit it.
    pthread_sigmask(SIG_UNBLOCK, &these, 0);
    return 0;
}

int shades_interrupts_take(void) { return atomic_exchange(&pending, 0); }
