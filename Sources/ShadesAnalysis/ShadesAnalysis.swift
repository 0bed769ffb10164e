// ShadesAnalysis: measurements of sound files, what a researcher needs to prove a sound is what it claims.
//
// Signal mathematics that needs only FFTW lives in `ShadesDSP/Analysis` (so an app can measure
// without file I/O); this module adds libebur128 loudness, streaming over files, reports and plots.
