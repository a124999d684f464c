#!/bin/sh
printf 'partial out\n'
printf 'partial err' >&2
exec sleep 2
