"""PyTorch reference train step for `envace bench`: the same Llama-family model as
test/parity/reference.py, SFT cross-entropy, AdamW, on the CPU with a fixed thread count.
A config with `lora` trains only the adapters (rank r on its targets) over a frozen base, as ours does.

Usage: /usr/bin/python3 torch_train_step.py CONFIG_JSON BATCH SEQ_LEN STEPS THREADS [WARMUP]
WARMUP untimed steps come first (default 1).
Prints one JSON line: {"median_step_ms": ..., "tokens_per_sec": ..., "peak_rss_mb": ...}
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
from reference import forward, init_params  # noqa: E402


def main():
    cfg = json.loads(sys.argv[1])
    B, T, steps, threads = (int(a) for a in sys.argv[2:6])
    warmup = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    P = init_params(cfg)
    lora = cfg.get("lora")
    if lora:
        # The base stays plain tensors (no gradients); only the adapters are parameters.
        for k, w in list(P.items()):
            if k.endswith(".weight") and k.split(".")[-2] in lora["targets"]:
                name = k[: -len(".weight")]
                P[name + ".lora_A.weight"] = torch.nn.Parameter(torch.randn(lora["rank"], w.shape[1]) * 0.02)
                P[name + ".lora_B.weight"] = torch.nn.Parameter(torch.randn(w.shape[0], lora["rank"]) * 0.02)
        trainable = [v for v in P.values() if isinstance(v, torch.nn.Parameter)]
    else:
        P = {k: torch.nn.Parameter(v) for k, v in P.items()}
        trainable = list(P.values())
    opt = torch.optim.AdamW(trainable, lr=1e-4)
    ids = torch.randint(0, cfg["vocabSize"], (B, T + 1))
    mask = torch.ones(B, T, dtype=torch.int64)
    pos = torch.arange(T)[None].expand(B, T)
    times = []
    for i in range(warmup + steps):
        t0 = time.perf_counter()
        logits = forward(cfg, P, ids[:, :-1], mask, pos)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if i >= warmup:  # the first steps warm up allocators
            times.append(time.perf_counter() - t0)
    med = statistics.median(times)
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"median_step_ms": med * 1000, "tokens_per_sec": B * T / med, "peak_rss_mb": rss_mb}))


if __name__ == "__main__":
    main()
