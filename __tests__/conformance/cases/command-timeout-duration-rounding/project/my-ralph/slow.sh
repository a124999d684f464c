#!/bin/sh
exec sleep 2
