"""Independent PyTorch reference for the native-models parity tests.

Usage: /usr/bin/python3 reference.py CASE_DIR [CASE_DIR ...]
Each CASE_DIR holds `case.json` (model config, objective, scalar knobs) and `inputs.safetensors`
(parameters under their Hugging Face names, plus input_ids, attention_mask, position_ids, targets and
the per-token loss inputs). Writes `outputs.safetensors` with logits, logprobs, entropy, the loss terms
and `grad.<param>` for every trainable parameter, computed by torch autograd.

Written from the Llama / Qwen2 / Qwen3 architecture descriptions and algorithms.md; it shares no code
with the TypeScript graph builder.
"""
import json
import math
import struct
import sys

import numpy as np
import torch

ST_DTYPES = {"F32": np.float32, "F64": np.float64, "I64": np.int64, "I32": np.int32}
ST_NAMES = {np.dtype(v): k for k, v in ST_DTYPES.items()}


def read_safetensors(path):
    with open(path, "rb") as f:
        blob = f.read()
    (n,) = struct.unpack("<Q", blob[:8])
    header = json.loads(blob[8 : 8 + n])
    data = blob[8 + n :]
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        a, b = e["data_offsets"]
        if e["dtype"] == "BF16":  # the top 16 bits of a float32
            arr = (np.frombuffer(data[a:b], dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        elif e["dtype"] == "F16":
            arr = np.frombuffer(data[a:b], dtype=np.float16).astype(np.float32)
        else:
            arr = np.frombuffer(data[a:b], dtype=ST_DTYPES[e["dtype"]])
        out[name] = torch.from_numpy(arr.reshape(e["shape"]).copy())
    return out


def write_safetensors(path, tensors):
    header, chunks, offset = {}, [], 0
    for name, t in tensors.items():
        arr = np.ascontiguousarray(t.detach().cpu().numpy())
        raw = arr.tobytes()
        header[name] = {"dtype": ST_NAMES[arr.dtype], "shape": list(arr.shape), "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    h = json.dumps(header).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(chunks))


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


def lora_linear(cfg, P, name, x):
    y = x @ P[name + ".weight"].t()
    if name + ".bias" in P:
        y = y + P[name + ".bias"]
    lora = cfg.get("lora")
    if lora and name.split(".")[-1] in lora["targets"]:
        y = y + (x @ P[name + ".lora_A.weight"].t() @ P[name + ".lora_B.weight"].t()) * (lora["alpha"] / lora["rank"])
    return y


def decoder_layer(cfg, P, i, x, cos, sin, bias, past=None):
    """Layer i on x [B,T,C]: attention (keys after RoPE appended to `past` = (keys, values) [B,KV,S0,D]
    when given; `bias` added to the scores unless None) and the SwiGLU MLP, each with its residual.
    Returns the new x and the layer's (keys, values) [B,KV,S,D] before they are repeated over heads."""
    B, T, _ = x.shape
    H, KV = cfg["nHeads"], cfg["nKvHeads"]
    D = cfg.get("headDim") or cfg["dModel"] // H
    p = f"model.layers.{i}"
    h = rms_norm(x, P[p + ".input_layernorm.weight"], cfg["normEps"])
    q = lora_linear(cfg, P, p + ".self_attn.q_proj", h).view(B, T, H, D)
    k = lora_linear(cfg, P, p + ".self_attn.k_proj", h).view(B, T, KV, D)
    v = lora_linear(cfg, P, p + ".self_attn.v_proj", h).view(B, T, KV, D)
    if cfg["qkNorm"]:
        q = rms_norm(q, P[p + ".self_attn.q_norm.weight"], cfg["normEps"])
        k = rms_norm(k, P[p + ".self_attn.k_norm.weight"], cfg["normEps"])
    q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)  # [B,h,T,D]
    q = q * cos + rotate_half(q) * sin
    k = k * cos + rotate_half(k) * sin
    if past is not None:
        k = torch.cat((past[0], k), dim=2)
        v = torch.cat((past[1], v), dim=2)
    S = k.shape[2]
    kv = (k, v)
    k = k[:, :, None].expand(B, KV, H // KV, S, D).reshape(B, H, S, D)
    v = v[:, :, None].expand(B, KV, H // KV, S, D).reshape(B, H, S, D)
    scores = q @ k.transpose(2, 3) / math.sqrt(D)
    if bias is not None:
        scores = scores + bias
    o = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, T, H * D)
    x = x + lora_linear(cfg, P, p + ".self_attn.o_proj", o)
    h = rms_norm(x, P[p + ".post_attention_layernorm.weight"], cfg["normEps"])
    gate = lora_linear(cfg, P, p + ".mlp.gate_proj", h)
    up = lora_linear(cfg, P, p + ".mlp.up_proj", h)
    x = x + lora_linear(cfg, P, p + ".mlp.down_proj", torch.nn.functional.silu(gate) * up)
    return x, kv


def forward(cfg, P, ids, mask, pos):
    T = ids.shape[1]
    D = cfg.get("headDim") or cfg["dModel"] // cfg["nHeads"]
    dtype = P["model.embed_tokens.weight"].dtype
    x = P["model.embed_tokens.weight"][ids]  # [B,T,C]
    inv_freq = 1.0 / (cfg["ropeTheta"] ** (torch.arange(0, D, 2, dtype=torch.float64) / D))
    freqs = pos.to(dtype)[..., None] * inv_freq.to(dtype)  # [B,T,D/2]
    emb = torch.cat((freqs, freqs), dim=-1)
    cos, sin = emb.cos()[:, None], emb.sin()[:, None]  # [B,1,T,D]
    # Additive mask: -1e9 for future keys and again for padded keys (finite, so padded rows stay finite).
    causal = torch.tril(torch.ones(T, T, dtype=torch.bool))
    bias = (~causal).to(dtype) * -1e9 + (~mask.bool()).to(dtype)[:, None, None, :] * -1e9  # [B,1,T,T]
    for i in range(cfg["nLayers"]):
        x, _ = decoder_layer(cfg, P, i, x, cos, sin, bias)
    x = rms_norm(x, P["model.norm.weight"], cfg["normEps"])
    head = P["model.embed_tokens.weight"] if cfg["tiedEmbeddings"] else P["lm_head.weight"]
    return x @ head.t()  # [B,T,V]


def init_params(cfg, std=0.02):
    """Random weights under Hugging Face names (for the benchmark; parity tests pass their own)."""
    H, KV = cfg["nHeads"], cfg["nKvHeads"]
    D = cfg.get("headDim") or cfg["dModel"] // H
    C, Fd, V = cfg["dModel"], cfg["dFf"], cfg["vocabSize"]
    shapes = {"model.embed_tokens.weight": (V, C), "model.norm.weight": (C,)}
    for i in range(cfg["nLayers"]):
        p = f"model.layers.{i}"
        shapes.update({
            p + ".input_layernorm.weight": (C,), p + ".post_attention_layernorm.weight": (C,),
            p + ".self_attn.q_proj.weight": (H * D, C), p + ".self_attn.k_proj.weight": (KV * D, C),
            p + ".self_attn.v_proj.weight": (KV * D, C), p + ".self_attn.o_proj.weight": (C, H * D),
            p + ".mlp.gate_proj.weight": (Fd, C), p + ".mlp.up_proj.weight": (Fd, C), p + ".mlp.down_proj.weight": (C, Fd),
        })
    if not cfg["tiedEmbeddings"]:
        shapes["lm_head.weight"] = (V, C)
    return {k: torch.ones(s) if k.endswith("norm.weight") else torch.randn(s) * std for k, s in shapes.items()}


def aggregate(per_token, mask, mode, norm):
    if mode == "seq-mean-token-mean":
        per_seq = (per_token * mask).sum(1) / mask.sum(1).clamp(min=1)
        return per_seq.sum() / norm
    return (per_token * mask).sum() / norm


def run_case(case_dir):
    case = json.load(open(f"{case_dir}/case.json"))
    cfg, obj, knobs = case["model"], case["objective"], case["knobs"]
    X = read_safetensors(f"{case_dir}/inputs.safetensors")
    P = {k: v.clone().requires_grad_(k in case["trainable"]) for k, v in X.items() if k.startswith("model.") or k.startswith("lm_head.")}
    logits = forward(cfg, P, X["input_ids"], X["attention_mask"], X["position_ids"])
    logp_all = torch.log_softmax(logits, dim=-1)
    lp = logp_all.gather(-1, X["targets"][..., None])[..., 0]  # [B,T]
    entropy = -(logp_all.exp() * logp_all).sum(-1)
    out = {"logits": logits.reshape(-1, logits.shape[-1]), "logprobs": lp, "entropy": entropy}
    total = torch.zeros((), dtype=logits.dtype)
    if "pg" in obj:
        A, mask = X["advantages"], X["pg_mask"]
        # The ratio's π_θ at the sampling temperature (the distribution old_logprobs were recorded
        # under); KL, SFT and world-model terms score the model itself (T = 1).
        T = obj["pg"].get("temperature", 1)
        lp_pg = lp if T == 1 else torch.log_softmax(logits / T, dim=-1).gather(-1, X["targets"][..., None])[..., 0]
        ratio = torch.exp(lp_pg - X["old_logprobs"])
        surr = torch.max(-A * ratio, -A * ratio.clamp(1 - knobs["clip_low"], 1 + knobs["clip_high"]))
        surr = torch.where(A < 0, torch.min(surr, -A * knobs["dual_clip"]), surr)
        pg = aggregate(surr, mask, obj["pg"]["aggregation"], knobs["pg_norm"])
        out["loss.pg"] = pg
        total = total + pg
        if "kl" in obj["pg"]:
            r = lp - X["ref_logprobs"]
            kl_tok = {"k1": r, "k2": 0.5 * r * r, "k3": torch.exp(-r) - 1 + r}[obj["pg"]["kl"]]
            kl = aggregate(kl_tok, mask, obj["pg"]["aggregation"], knobs["pg_norm"])
            out["loss.kl"] = kl
            total = total + knobs["kl_beta"] * kl
    if "sft" in obj:
        sft = aggregate(-lp, X["sft_mask"], obj["sft"]["aggregation"], knobs["sft_norm"])
        out["loss.sft"] = sft
        total = total + knobs["sft_coef"] * sft
    if "worldModel" in obj:
        if obj["worldModel"]["kind"] == "cmae":
            p = lp.exp()
            tok = torch.where(p <= knobs["cmae_rho"], 1 - p, torch.zeros_like(p))
        else:
            tok = -lp
        wm = (tok * X["wm_weight"]).sum()
        out["loss.wm"] = wm
        total = total + knobs["wm_coef"] * wm
    out["loss"] = total
    total.backward()
    for name in case["trainable"]:
        out["grad." + name] = P[name].grad
    write_safetensors(f"{case_dir}/outputs.safetensors", {k: v.detach().reshape(v.shape) for k, v in out.items()})


if __name__ == "__main__":
    torch.set_num_threads(1)
    for d in sys.argv[1:]:
        run_case(d)
