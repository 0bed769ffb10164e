#include "alsa_quiet.h"
#ifdef __linux__
#include <alsa/asoundlib.h>

static void drop(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void shades_alsa_silence(void) { snd_lib_error_set_handler(drop); }

int shades_alsa_has_devices(void) {
    int card = -1;
    if (snd_card_next(&card) == 0 && card >= 0) return 1;
    snd_config_t *pcm;
    return snd_config_update() >= 0 && snd_config != NULL && snd_config_search(snd_config, "pcm", &pcm) == 0;
}
#else
void shades_alsa_silence(void) {}
int shades_alsa_has_devices(void) { return 1; }
#endif
