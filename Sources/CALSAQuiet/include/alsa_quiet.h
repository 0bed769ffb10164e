#ifndef SHADES_ALSA_QUIET_H
#define SHADES_ALSA_QUIET_H
/// Routes ALSA's library messages (card probing at PortAudio's start, "underrun occurred" while playing)
/// to a handler that drops them (snd_lib_error_set_handler). Does nothing where ALSA is absent.
void shades_alsa_silence(void);
#endif
