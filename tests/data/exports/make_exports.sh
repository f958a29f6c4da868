#!/usr/bin/env sh
# Regenerate the office-suite exports of study.csv (LibreOffice Calc 7.4, headless).
# study.csv: the expressionism and surrealism rows of data/example_ratings.csv.
set -eu
cd "$(dirname "$0")"
in="CSV:44,34,76,1,,1033"   # comma, double quote, UTF-8, from line 1, English (US)
soffice --headless --infilter="$in" --convert-to xlsx study.csv
soffice --headless --infilter="$in" --convert-to ods study.csv
# "Text CSV" export: semicolon, double quote, Windows-1252 (charset 1), text cells quoted
mkdir -p out && soffice --headless --infilter="$in" \
  --convert-to 'csv:Text - txt - csv (StarCalc):59,34,1,1' --outdir out study.csv
mv out/study.csv study-libreoffice-cp1252.csv && rmdir out
