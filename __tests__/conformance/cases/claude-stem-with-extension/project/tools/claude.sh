#!/bin/sh
exec claude "$@"
