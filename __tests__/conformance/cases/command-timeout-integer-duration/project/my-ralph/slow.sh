#!/bin/sh
exec sleep 3
