#include "alsa_quiet.h"
#ifdef __linux__
#include <alsa/asoundlib.h>

static void drop(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void shades_alsa_silence(void) { snd_lib_error_set_handler(drop); }
#else
void shades_alsa_silence(void) {}
#endif
