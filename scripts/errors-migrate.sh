#!/usr/bin/env bash
# One error type for the library: the mechanical part of the move to ShadesError, re-runnable over
# Sources/, Tests/, Fuzz/ and Benchmarks/ (a second run changes nothing). Hand edits come after it
# (see the commit that follows the one adding this script). To be deleted once merged.
set -euo pipefail
cd "$(dirname "$0")/.."

files() { find Sources Tests Fuzz Benchmarks -name '*.swift' -not -path '*/.build/*' "$@"; }

# 1. The old types' definitions go (ShadesError in ShadesDSP/Units/ShadesError.swift replaces them).
#    Each is the doc comment block above the declaration and the declaration up to its closing `}` at column 0.
perl -0pi -e 's{(?:^///[^\n]*\n)*^public enum RenderError\b.*?^\}\n\n?}{}ms' Sources/ShadesRender/Sinks/Renderer.swift
perl -0pi -e 's{\n(?:^///[^\n]*\n)*^public enum AudioFileError\b.*?^\}\n}{}ms' Sources/ShadesIO/SoundFiles/AudioFileFormat.swift
perl -0pi -e 's{(?:^///[^\n]*\n)*^public enum AnalysisError\b.*?^\}\n\n?}{}ms' Sources/ShadesAnalysis/FileAnalysis.swift
perl -0pi -e 's{(?:^///[^\n]*\n)*^public enum LoudnessError\b.*?^\}\n\n?}{}ms' Sources/ShadesAnalysis/Loudness/LoudnessMeter.swift
perl -0pi -e 's{(?:^///[^\n]*\n)*^public enum CatalogueError\b.*?^\}\n\n?}{}ms' Sources/ShadesCatalogue/Build/BuildAsset.swift
perl -0pi -e 's{(?:^///[^\n]*\n)*^public struct PresetError\b.*?^\}\n\n?}{}ms' Sources/ShadesCatalogue/Presets/Preset.swift
perl -0pi -e 's{(?:^///[^\n]*\n)*^struct JSONSyntaxError\b.*?^\}\n\n?}{}ms' Sources/ShadesCatalogue/Presets/JSONScanner.swift
perl -0pi -e 's{(?:^///[^\n]*\n)*^package struct FileSystemError\b.*?^\}\n\n?}{}ms' Sources/ShadesIO/FileSystem/FileSystem.swift

# 2. Cases whose meaning moves: the catalogue's `.input` is the caller's input (`.usage`), its `.io` and the
#    analysis' `.measurement` are `.runtime`; a sound file that cannot be read is `.input`.
perl -pi -e 's/\bCatalogueError\.input\(/ShadesError.usage(/g; s/\bCatalogueError\.io\(/ShadesError.runtime(/g' $(files)
perl -pi -e 's/\bthrow \.input\((?!"cannot read )/throw .usage(/g; s/\bthrow \.io\(/throw .runtime(/g' $(files -path 'Sources/ShadesCatalogue/*')
perl -pi -e 's/\bthrow \.measurement\(/throw .runtime(/g' $(files -path 'Sources/ShadesAnalysis/*')
perl -pi -e 's/\.runtime\("cannot read /.input("cannot read /g' $(files -path 'Sources/*')

# 3. Wrappers that only re-wrapped one error type in another now pass the error through.
perl -pi -e 's/\bthrow RenderError\(error\)/throw error/g;
             s/\bthrow \.(?:io|usage|input|runtime)\(error\.description\)/throw error/g' $(files -path 'Sources/Shades*')
#    `.usage(ParameterError(…).description)` is the parameter error itself.
perl -pi -e 's/\.usage\(ParameterError(\((?:[^()]++|(?1))*\))\.description\)/ShadesError$1/g' $(files)

# 4. The types themselves; the continuation lines of a call aligned under its `(` move with it.
perl -0pi -e '
    my $old = qr/\b(ParameterError|AudioFileError|RenderError|LoudnessError|AnalysisError|CatalogueError|FileSystemError|JSONSyntaxError|PresetError)\b/;
    my ($target, $delta, $depth);
    my @lines = split /\n/, $_, -1;
    for my $l (@lines) {
        if (defined $target) {
            my $balance = () = $l =~ /\(/g; $balance -= () = $l =~ /\)/g;
            substr($l, 0, $delta) = "" if $l =~ /^ {$target}(?! )/;
            $depth += $balance;
            undef $target if $depth <= 0;
        } elsif ($l =~ /$old\(/) {
            my ($name, $open) = ($1, $-[0] + length($1));
            my $rest = substr($l, $open);
            my $balance = () = $rest =~ /\(/g; $balance -= () = $rest =~ /\)/g;
            ($target, $delta, $depth) = ($open + 1, length($name) - length("ShadesError"), $balance)
                if $balance > 0 && length($name) > length("ShadesError");
        }
        $l =~ s/\bPresetError\(file:/ShadesError(path:/g;
        $l =~ s/$old/ShadesError/g;
    }
    $_ = join "\n", @lines;
' $(files)

# 5. `do throws(ShadesError) { … } catch { throw error }` is its body: unwrapped, one level less indented.
perl -0pi -e '
    s{^([ \t]*)do throws\(ShadesError\) (\{((?:[^{}]++|(?2))*)\})[ \t]*catch[ \t]*\{[ \t]*throw error[ \t]*\}}{
        my ($indent, $body) = ($1, $3);
        if ($body !~ /\n/) { $body =~ s/^\s+|\s+$//g; "$indent$body" }
        else {
            $body =~ s/^[ \t]*\n//; $body =~ s/\n[ \t]*\z//;
            $body =~ s/^    //mg;
            $body
        }
    }gme' $(files -path 'Sources/Shades*')

#    A declaration left just above its only assignment takes it (`let x = try T(…)`, else `let x: T = try …`).
perl -0pi -e 's{^([ \t]+)let (\w+): ([^\n=]+)\n\1\2 = (try [^\n]*)}{
        my ($indent, $name, $type, $value) = ($1, $2, $3, $4);
        index($value, "try $type(") == 0 ? "${indent}let $name = $value" : "${indent}let $name: $type = $value"
    }gme' $(files -path 'Sources/Shades*')

# 6. Files naming ShadesError outside ShadesDSP import it: before their first `import Shades…`, else after
#    their imports (after a leading `#if canImport(Glibc)` block).
for f in $(files -path 'Sources/*' -not -path 'Sources/ShadesDSP/*') $(files -path 'Tests/*' -not -path 'Tests/ShadesDSPTests/*') $(files -path 'Fuzz/*'); do
    if grep -q '\bShadesError\b' "$f" && ! grep -Eq '^(@testable )?import ShadesDSP$' "$f"; then
        perl -0pi -e 's/^(?=(?:\@testable )?import Shades)/import ShadesDSP\n/m
                      or s/\A((?:#if [^\n]*\n(?:[^\n]*\n)*?#endif\n)?(?:import [^\n]*\n)*)/$1 . "import ShadesDSP\n" . ($1 ? "" : "\n")/e' "$f"
    fi
done

# 7. Library messages name the library's parameters, not the command line's flags.
perl -pi -e 's/cannot be combined with --loop/cannot be combined with loop/g;
             s/"--left\/--right need a stereo input/"left\/right need a stereo input/g' $(files -path 'Sources/Shades*')
