#!/bin/sh
printf '%s ran\n' "$1" >> ../marks.txt
printf 'output of %s\n' "$1"
