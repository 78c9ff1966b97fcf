"""Reference forward pass of an exported Hugging Face folder, for the export parity tests.

Usage: /usr/bin/python3 exports_reference.py HF_DIR IDS_JSON OUT_SAFETENSORS
       /usr/bin/python3 exports_reference.py HF_DIR IDS_JSON OUT_JSON --greedy N
Reads only what any Hugging Face loader reads: config.json and model.safetensors (parsed by hand: an
8-byte little-endian header length, a JSON header, raw tensor bytes). Runs the LlamaForCausalLM /
Qwen2ForCausalLM / Qwen3ForCausalLM forward described by config.json on the token rows in IDS_JSON
(a list of equal-length lists, no padding) and writes `logits` [B, T, V] as float32 safetensors.
With --greedy N it instead continues each row (any lengths) by N argmax tokens, recomputing the full
forward for every token (no cache), and writes the new tokens as a JSON list of lists.

Written from the architectures' descriptions; it shares no code with the TypeScript model or exporter
(only the hand-written safetensors reader/writer of reference.py).
"""
import json
import os
import sys

import torch

# The safetensors reader/writer (parsed by hand) is shared with the other Python references.
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference import read_safetensors, write_safetensors  # noqa: E402


class Llama:
    def __init__(self, cfg, w):
        self.cfg, self.w = cfg, w
        arch = cfg["architectures"][0]
        self.heads = cfg["num_attention_heads"]
        self.kv_heads = cfg.get("num_key_value_heads", self.heads)
        self.head_dim = cfg.get("head_dim") or cfg["hidden_size"] // self.heads
        self.eps = cfg.get("rms_norm_eps", 1e-6)
        self.theta = cfg.get("rope_theta", 10000.0)
        self.qk_norm = arch == "Qwen3ForCausalLM"
        self.tied = cfg.get("tie_word_embeddings", False)

    def norm(self, x, weight):
        variance = x.pow(2).mean(-1, keepdim=True)
        return weight * (x * torch.rsqrt(variance + self.eps))

    def proj(self, x, name):
        bias = self.w.get(name + ".bias")
        return torch.nn.functional.linear(x, self.w[name + ".weight"], bias)

    def rope(self, x, positions):
        # x [B, heads, T, D]; rotate the first half against the second half of each head.
        d = self.head_dim
        inv_freq = 1.0 / (self.theta ** (torch.arange(0, d, 2, dtype=torch.float64) / d))
        angles = positions[:, None].double() * inv_freq[None, :]
        emb = torch.cat([angles, angles], dim=-1)
        cos, sin = emb.cos().float(), emb.sin().float()
        first, second = x[..., : d // 2], x[..., d // 2 :]
        rotated = torch.cat([-second, first], dim=-1)
        return x * cos + rotated * sin

    def attention(self, i, x, positions):
        b, t, _ = x.shape
        p = f"model.layers.{i}.self_attn"
        q = self.proj(x, p + ".q_proj").view(b, t, self.heads, self.head_dim)
        k = self.proj(x, p + ".k_proj").view(b, t, self.kv_heads, self.head_dim)
        v = self.proj(x, p + ".v_proj").view(b, t, self.kv_heads, self.head_dim)
        if self.qk_norm:
            q = self.norm(q, self.w[p + ".q_norm.weight"])
            k = self.norm(k, self.w[p + ".k_norm.weight"])
        q, k, v = (z.transpose(1, 2) for z in (q, k, v))
        q, k = self.rope(q, positions), self.rope(k, positions)
        group = self.heads // self.kv_heads
        k = k.repeat_interleave(group, dim=1)
        v = v.repeat_interleave(group, dim=1)
        scores = q @ k.transpose(-1, -2) / (self.head_dim ** 0.5)
        causal = torch.ones(t, t, dtype=torch.bool).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        out = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, self.heads * self.head_dim)
        return self.proj(out, p + ".o_proj")

    def mlp(self, i, x):
        p = f"model.layers.{i}.mlp"
        gate = self.proj(x, p + ".gate_proj")
        return self.proj(torch.nn.functional.silu(gate) * self.proj(x, p + ".up_proj"), p + ".down_proj")

    def forward(self, ids):
        x = self.w["model.embed_tokens.weight"][ids]
        positions = torch.arange(ids.shape[1])
        for i in range(self.cfg["num_hidden_layers"]):
            p = f"model.layers.{i}"
            x = x + self.attention(i, self.norm(x, self.w[p + ".input_layernorm.weight"]), positions)
            x = x + self.mlp(i, self.norm(x, self.w[p + ".post_attention_layernorm.weight"]))
        x = self.norm(x, self.w["model.norm.weight"])
        head = self.w["model.embed_tokens.weight"] if self.tied else self.w["lm_head.weight"]
        return x @ head.t()


def main():
    hf_dir, ids_path, out_path = sys.argv[1:4]
    with open(f"{hf_dir}/config.json") as f:
        cfg = json.load(f)
    with open(ids_path) as f:
        rows = json.load(f)
    model = Llama(cfg, {k: v.float() for k, v in read_safetensors(f"{hf_dir}/model.safetensors").items()})
    with torch.no_grad():
        if sys.argv[4:5] == ["--greedy"]:
            with open(out_path, "w") as f:
                json.dump([greedy(model, row, int(sys.argv[5])) for row in rows], f)
        else:
            write_safetensors(out_path, {"logits": model.forward(torch.tensor(rows, dtype=torch.long)).float()})


def greedy(model, row, n):
    ids = list(row)
    for _ in range(n):
        logits = model.forward(torch.tensor([ids], dtype=torch.long))[0, -1]
        ids.append(int(logits.argmax()))
    return ids[len(row):]


if __name__ == "__main__":
    main()
