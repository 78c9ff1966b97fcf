#!/usr/bin/env bash
# GPU checks (CUDA vs CPU parity for the train step and decode, plus figures). On a machine without
# an NVIDIA GPU it prints that it is skipped and why, and exits 0. See gpu-checks.ts.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec node --import tsx test/gpu/gpu-checks.ts "$@"
