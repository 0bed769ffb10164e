#include <portaudio.h>
