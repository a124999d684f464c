#!/bin/sh
printf 'mark=%s\n' "$CONFORMANCE_MARK"
printf 'ralph_name=%s\n' "${RALPH_NAME-unset}"
