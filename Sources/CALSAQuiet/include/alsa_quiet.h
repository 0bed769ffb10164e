#ifndef SHADES_ALSA_QUIET_H
#define SHADES_ALSA_QUIET_H
/// Routes ALSA's library messages (card probing at PortAudio's start, "underrun occurred" while playing)
/// to a handler that drops them (snd_lib_error_set_handler). Does nothing where ALSA is absent.
void shades_alsa_silence(void);

/// 1 when ALSA has a sound card (snd_card_next) or a configuration that defines PCM devices (the
/// "pcm" node after snd_config_update), else 0; 1 where ALSA is absent. PortAudio 19.6 aborts in
/// Pa_Initialize (an assertion in its ALSA device list) on a machine with neither: a cluster node, a
/// chroot without /usr/share/alsa.
int shades_alsa_has_devices(void);
#endif
