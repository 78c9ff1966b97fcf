"""Load an envace LoRA export the way a PEFT user would and compare it with envace's merged export.

usage: lora_peft_check.py ADAPTER_DIR MERGED_HF_DIR OUT_JSON

AutoPeftModelForCausalLM.from_pretrained(ADAPTER_DIR) loads the base adapter_config.json names and applies
the adapter; the merged Hugging Face export (adapters folded into the weights) is loaded with transformers.
Both run the same token rows (role markers included) in float32; OUT_JSON gets the largest logit difference,
how far the adapter moves the base's logits, the markers' ids in the base's tokenizer, every warning emitted
while loading, and the versions used.
"""

import json
import logging
import sys
import warnings

import torch


class Collect(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(f"{record.name}: {record.getMessage()}")


def main():
    adapter_dir, merged_dir, out_path = sys.argv[1:4]
    collected = Collect()
    for name in ("transformers", "peft", "accelerate", "huggingface_hub"):
        logging.getLogger(name).addHandler(collected)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import peft
        import transformers
        from peft import AutoPeftModelForCausalLM
        from transformers import AutoModelForCausalLM, AutoTokenizer

        with open(f"{adapter_dir}/adapter_config.json") as f:
            base_path = json.load(f)["base_model_name_or_path"]
        model = AutoPeftModelForCausalLM.from_pretrained(adapter_dir, torch_dtype=torch.float32).eval()
        merged = AutoModelForCausalLM.from_pretrained(merged_dir, torch_dtype=torch.float32).eval()
        tokenizer = AutoTokenizer.from_pretrained(base_path)
    load_warnings = [f"{w.category.__name__}: {w.message}" for w in caught] + collected.messages

    markers = ["<|act|>", "<|obs|>"]
    marker_ids = [tokenizer.convert_tokens_to_ids(m) for m in markers]
    text = tokenizer("look up order 1042 and say its status", add_special_tokens=False)["input_ids"]
    rows = [marker_ids[:1] + text + marker_ids[1:], (text * 3)[: len(text) + 2]]
    ids = torch.tensor(rows)
    with torch.no_grad():
        adapted = model(input_ids=ids).logits
        folded = merged(input_ids=ids).logits
        with model.disable_adapter():
            bare = model(input_ids=ids).logits
    result = {
        "maxAbsDiff": (adapted - folded).abs().max().item(),
        "maxAbsLogit": folded.abs().max().item(),
        "adapterEffect": (adapted - bare).abs().max().item(),
        "basePath": base_path,
        "baseVocab": model.get_input_embeddings().weight.shape[0],
        "mergedVocab": merged.get_input_embeddings().weight.shape[0],
        "markerIds": dict(zip(markers, marker_ids)),
        "tokenizerSize": len(tokenizer),
        "warnings": load_warnings,
        "versions": {"torch": torch.__version__, "transformers": transformers.__version__, "peft": peft.__version__},
    }
    with open(out_path, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main()
