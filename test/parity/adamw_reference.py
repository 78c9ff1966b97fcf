"""torch.optim.AdamW + clip_grad_norm_ reference for the optimizer graph.

Usage: /usr/bin/python3 adamw_reference.py DIR
DIR/case.json: {params: [{name, decay}], steps: [{lr, max_grad_norm}], beta1, beta2, eps, weight_decay}
DIR/inputs.safetensors: `param.<name>` initial values, `grad<k>.<name>` gradient of step k.
Writes DIR/outputs.safetensors: `param.<name>`, `m.<name>`, `v.<name>` after all steps, `grad_norm<k>`.
"""
import json
import sys

import torch

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, __file__.rsplit("/", 1)[0])
from reference import read_safetensors, write_safetensors  # noqa: E402


def main(d):
    case = json.load(open(f"{d}/case.json"))
    X = read_safetensors(f"{d}/inputs.safetensors")
    params = {p["name"]: torch.nn.Parameter(X["param." + p["name"]].clone()) for p in case["params"]}
    decay = [params[p["name"]] for p in case["params"] if p["decay"]]
    no_decay = [params[p["name"]] for p in case["params"] if not p["decay"]]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": case["weight_decay"]}, {"params": no_decay, "weight_decay": 0.0}],
        lr=1.0, betas=(case["beta1"], case["beta2"]), eps=case["eps"],
    )
    out = {}
    for k, step in enumerate(case["steps"]):
        for name, p in params.items():
            p.grad = X[f"grad{k}.{name}"].clone()
        out[f"grad_norm{k}"] = torch.nn.utils.clip_grad_norm_(list(params.values()), step["max_grad_norm"]).reshape(())
        for group in opt.param_groups:
            group["lr"] = step["lr"]
        opt.step()
    for name, p in params.items():
        out["param." + name] = p.detach()
        out["m." + name] = opt.state[p]["exp_avg"]
        out["v." + name] = opt.state[p]["exp_avg_sq"]
    write_safetensors(f"{d}/outputs.safetensors", out)


if __name__ == "__main__":
    main(sys.argv[1])
