#!/bin/sh
exec record-agent "$@"
