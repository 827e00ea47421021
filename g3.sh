#!/bin/sh
tpm2_getrandom 4 --hex
