# Random ggml blocks of every type our GGUF reader takes, and llama.cpp's own dequantisation of them
# (gguf-py's gguf.quants.dequantize). Random bytes everywhere, except that each f16 scale is a finite
# value in [-2, 2]: a NaN scale would make "equal" meaningless. Writes <TYPE>.bin (the blocks) and
# <TYPE>.f32 (little-endian float32 reference) into the folder given.
import sys
from pathlib import Path

import numpy as np
from gguf.constants import GGML_QUANT_SIZES, GGMLQuantizationType as T
from gguf.quants import dequantize

out = Path(sys.argv[1])
rng = np.random.default_rng(int(sys.argv[2]))
# 64 Q4_K super-blocks' worth of weights for every type.
WEIGHTS = 64 * 256

# Byte offsets of the f16 scales inside one block (ggml's block_* structs).
SCALES = {'Q4_0': [0], 'Q4_1': [0, 2], 'Q5_0': [0], 'Q5_1': [0, 2], 'Q8_0': [0], 'Q4_K': [0, 2], 'Q5_K': [0, 2], 'Q6_K': [208]}

def f16(n):
    return rng.uniform(-2, 2, n).astype(np.float16).view(np.uint8).reshape(n, 2)

for name in ['F32', 'F16', 'BF16', *SCALES]:
    qtype = T[name]
    block_size, type_size = GGML_QUANT_SIZES[qtype]
    n = WEIGHTS // block_size
    if name == 'F32':
        raw = rng.standard_normal(n).astype(np.float32).view(np.uint8)
    elif name == 'F16':
        raw = rng.uniform(-1e4, 1e4, n).astype(np.float16).view(np.uint8)
    elif name == 'BF16':
        # bf16 is the top half of a float32.
        raw = (rng.standard_normal(n).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16).view(np.uint8)
    else:
        blocks = rng.integers(0, 256, (n, type_size), dtype=np.uint8)  # n blocks
        for at in SCALES[name]:
            blocks[:, at:at + 2] = f16(n)
        raw = blocks.reshape(-1)
    # One row of all the weights: dequantize takes rows whose last dim is in bytes.
    values = dequantize(raw.reshape(1, -1), qtype).astype('<f4')
    (out / f'{name}.bin').write_bytes(raw.tobytes())
    (out / f'{name}.f32').write_bytes(values.tobytes())
