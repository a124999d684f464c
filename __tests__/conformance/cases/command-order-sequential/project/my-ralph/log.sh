#!/bin/sh
printf '%s\n' "$1" >> ../log.txt
