"""PyTorch reference greedy decode with a key/value cache for `envace bench`: the Llama-family model
of test/parity/reference.py (same layers, same Hugging Face weight names), run as one prefill over
the prompts and then one token at a time with the past keys/values, on the CPU with a fixed thread
count. Prefill and decode are timed apart.

Usage: /usr/bin/python3 torch_generate.py CONFIG_JSON WEIGHTS_SAFETENSORS PROMPTS_JSON NEW_TOKENS THREADS [REPEATS]
With REPEATS > 1 the timed generation runs that many times and the median times are reported.
PROMPTS_JSON is a file holding [[token ids]], all rows the same length (no padding here).
Prints one JSON line:
  {"prefill_tokens_per_s", "decode_tokens_per_s", "tokens": [[...]], "margins": [[...]], "peak_rss_mb"}
where `margins` is the top-1 minus top-2 logit at each step (near ties show as tiny margins).
"""
import json
import os
import resource
import statistics
import sys
import time

import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "parity"))
from reference import decoder_layer, read_safetensors, rms_norm  # noqa: E402


def rope_tables(cfg, D, start, T):
    inv_freq = 1.0 / (cfg["ropeTheta"] ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    freqs = torch.arange(start, start + T, dtype=torch.float32)[:, None] * inv_freq.to(torch.float32)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos()[None, None], emb.sin()[None, None]  # [1,1,T,D]


def forward_cached(cfg, P, ids, cache):
    """Logits of the last position; `cache[i]` holds layer i's (keys, values) [B,KV,S,D] and grows by T."""
    T = ids.shape[1]
    D = cfg.get("headDim") or cfg["dModel"] // cfg["nHeads"]
    start = cache[0][0].shape[2] if cache else 0
    cos, sin = rope_tables(cfg, D, start, T)
    S = start + T
    # Query t (absolute position start+t) sees keys 0..start+t; a single decode token sees them all.
    bias = None
    if T > 1:
        allowed = torch.ones(T, S, dtype=torch.bool).tril(start)
        bias = (~allowed).to(torch.float32) * -1e9
    x = P["model.embed_tokens.weight"][ids]
    new_cache = []
    for i in range(cfg["nLayers"]):
        x, kv = decoder_layer(cfg, P, i, x, cos, sin, bias, cache[i] if cache else None)
        new_cache.append(kv)
    x = rms_norm(x[:, -1], P["model.norm.weight"], cfg["normEps"])  # only the last position is sampled
    head = P["model.embed_tokens.weight"] if cfg["tiedEmbeddings"] else P["lm_head.weight"]
    cache[:] = new_cache
    return x @ head.t()  # [B,V]


def greedy(cfg, P, ids, new_tokens):
    """Returns (tokens [B,N], margins [B,N], prefill seconds, decode seconds)."""
    cache = []
    tokens, margins = [], []

    def pick(logits):
        top = logits.topk(2, dim=-1).values
        margins.append(top[:, 0] - top[:, 1])
        tokens.append(logits.argmax(dim=-1))
        return tokens[-1][:, None]

    t0 = time.perf_counter()
    nxt = pick(forward_cached(cfg, P, ids, cache))
    t1 = time.perf_counter()
    for _ in range(new_tokens - 1):
        nxt = pick(forward_cached(cfg, P, nxt, cache))
    t2 = time.perf_counter()
    return torch.stack(tokens, 1), torch.stack(margins, 1), t1 - t0, t2 - t1


def main():
    if len(sys.argv) not in (6, 7):
        sys.exit(__doc__)
    cfg = json.loads(sys.argv[1])
    weights_path, prompts_path = sys.argv[2], sys.argv[3]
    new_tokens, threads = int(sys.argv[4]), int(sys.argv[5])
    repeats = int(sys.argv[6]) if len(sys.argv) == 7 else 1
    prompts = json.load(open(prompts_path))
    if not prompts or len({len(p) for p in prompts}) != 1 or not prompts[0]:
        sys.exit("prompts must be non-empty rows of one length")
    if new_tokens < 1:
        sys.exit("NEW_TOKENS must be at least 1")
    torch.set_num_threads(threads)
    P = read_safetensors(weights_path)
    ids = torch.tensor(prompts, dtype=torch.int64)
    B, T = ids.shape
    with torch.inference_mode():
        greedy(cfg, P, ids, min(2, new_tokens))  # warm-up: allocator and thread pool
        runs = [greedy(cfg, P, ids, new_tokens) for _ in range(max(1, repeats))]
    tokens, margins = runs[0][0], runs[0][1]
    prefill_s = statistics.median(r[2] for r in runs)  # medians: this machine is noisy
    decode_s = statistics.median(r[3] for r in runs)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({
        "prefill_tokens_per_s": B * T / prefill_s,
        "decode_tokens_per_s": B * (new_tokens - 1) / decode_s if new_tokens > 1 else None,
        "tokens": tokens.tolist(),
        "margins": margins.tolist(),
        "peak_rss_mb": rss_mb,
    }))


if __name__ == "__main__":
    main()
