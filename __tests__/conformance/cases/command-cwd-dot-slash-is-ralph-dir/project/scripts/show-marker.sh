#!/bin/sh
cat marker.txt
