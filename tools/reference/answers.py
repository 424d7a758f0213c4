"""transformers' own answers for the checkpoint folders qa-shard builds
graphs from (make test-reference).

usage: python answers.py CHECKPOINTS CORPUS GOLDEN_DIR LOGITS_DIR QUESTION...

CHECKPOINTS holds tools/refcheckpoints' folders (ck-*): config.json,
model.safetensors with qa-shard's seeded weights, tokenizer files. Each is
loaded with AutoModelForQuestionAnswering.from_pretrained, which must find
every weight under its own name and shape (a missing, unexpected or
mismatched tensor fails here), and asked every QUESTION, then the record's own
question and questions, of every record of CORPUS (JSON lines with id and
context) by transformers' real
QuestionAnsweringPipeline (4.57, top_k=2, its other defaults). GOLDEN_DIR
gets <name>.jsonl, the answers (committed: make test compares qa-shard's
with them), and LOGITS_DIR <name>.json, the start and end logits of every
window the pipeline ran, by its input ids (make test-reference compares
qa-shard's --logits with them).
"""
import functools
import json
import os
import sys

import torch
import transformers
from transformers import AutoModelForQuestionAnswering, AutoTokenizer, pipeline

TOP_K = 2


def main():
    ckdir, corpus, golden_dir, logits_dir = sys.argv[1:5]
    questions = sys.argv[5:]
    docs = [json.loads(line) for line in open(corpus, encoding="utf-8") if line.strip()]
    os.makedirs(golden_dir, exist_ok=True)
    os.makedirs(logits_dir, exist_ok=True)
    for name in sorted(os.listdir(ckdir)):
        if not name.startswith("ck-"):
            continue
        folder = os.path.join(ckdir, name)
        model, info = AutoModelForQuestionAnswering.from_pretrained(folder, output_loading_info=True)
        bad = {k: v for k, v in info.items() if v}
        if bad:
            sys.exit(f"{name}: transformers does not load qa-shard's weights as they are: {bad}")
        model.eval()
        tok = AutoTokenizer.from_pretrained(folder)
        windows = {}
        forward = model.forward

        @functools.wraps(forward)  # the pipeline feeds what the signature takes
        def record(*args, **kwargs):
            out = forward(*args, **kwargs)
            ids, mask = kwargs["input_ids"], kwargs["attention_mask"]
            for r in range(ids.shape[0]):
                n = int(mask[r].sum())
                key = " ".join(map(str, ids[r, :n].tolist()))
                windows[key] = [out.start_logits[r, :n].tolist(), out.end_logits[r, :n].tolist()]
            return out

        model.forward = record
        qa = pipeline("question-answering", model=model, tokenizer=tok, device="cpu")
        rows = []
        with torch.no_grad():
            for d in docs:
                own = d.get("questions") or []
                if isinstance(d.get("question"), str):
                    own = [d["question"]] + own
                asked = list(dict.fromkeys(q.strip() for q in questions + own if q.strip()))  # as qa-shard asks them
                for q in asked:
                    got = qa(question=q, context=d["context"], top_k=TOP_K)
                    if isinstance(got, dict):
                        got = [got]
                    rows.append({"id": d["id"], "question": q,
                                 "answers": [{"answer": a["answer"], "score": a["score"], "start": a["start"], "end": a["end"]} for a in got]})
        with open(os.path.join(golden_dir, name + ".jsonl"), "w", encoding="utf-8") as f:
            f.write(f'{{"transformers": "{transformers.__version__}", "torch": "{torch.__version__}"}}\n')
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        with open(os.path.join(logits_dir, name + ".json"), "w") as f:
            json.dump(windows, f)
        print(name, len(rows), "answers,", len(windows), "windows")


if __name__ == "__main__":
    main()
