#!/bin/sh
printf quiet
exec sleep 2
