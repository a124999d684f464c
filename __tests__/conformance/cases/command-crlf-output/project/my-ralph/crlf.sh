#!/bin/sh
printf 'a\r\nb\rc\r\r\nd'
printf 'e\r\n' >&2
