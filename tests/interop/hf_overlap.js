// hf_overlap.js OURS_DIR KEEP_SPECIALS FILE... — how far HF tokenizers' BpeTrainer agrees with
// bpebench (docs/using-the-tokenizer.md). The npm package exposes no trainer options: its
// Tokenizer.train(files) runs the model's default BpeTrainer (vocab 30000, no special tokens,
// alphabet = the characters seen). It is given OURS_DIR/tokenizer.json's pre-tokenizer (and,
// with KEEP_SPECIALS=1, its added tokens) and an empty BPE model; its first m merges are
// compared with ours (m = ours), and HF's vocabulary cut at our V with ours.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { Tokenizer } = require("tokenizers");
const [dir, keep, ...files] = process.argv.slice(2);
const ours = JSON.parse(fs.readFileSync(dir + "/tokenizer.json", "utf8"));
const cfg = JSON.parse(JSON.stringify(ours));
cfg.model.vocab = {}; cfg.model.merges = [];
if (keep !== "1") cfg.added_tokens = [];
const t = Tokenizer.fromString(JSON.stringify(cfg));
t.train(files);
const saved = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "hf-overlap-")), "hf.json");
t.save(saved);
const hf = JSON.parse(fs.readFileSync(saved, "utf8"));
fs.rmSync(path.dirname(saved), { recursive: true });
const m = ours.model.merges.length;
const joinm = (x) => (Array.isArray(x) ? x.join("") : x.replace(" ", ""));
const a = new Set(ours.model.merges.map(joinm));
const bList = hf.model.merges.slice(0, m).map(joinm);
const shared = bList.filter((x) => a.has(x)).length;
let same = 0; while (same < m && joinm(ours.model.merges[same]) === bList[same]) same++;
// vocabularies of V tokens each: ours (all ids) vs HF's alphabet + first merges up to V
const V = Object.keys(ours.model.vocab).length;
const hfAlphabet = Object.keys(hf.model.vocab).filter((k) => [...k].length === 1);
const hfV = new Set([...hfAlphabet, ...hf.model.merges.slice(0, V - hfAlphabet.length - (keep === "1" ? ours.added_tokens.length : 0)).map(joinm)]);
const oursV = new Set(Object.keys(ours.model.vocab));
const vshared = [...oursV].filter((k) => hfV.has(k)).length;
console.log(`merges m=${m}: ${shared} learned tokens shared (${(100 * shared / m).toFixed(1)}%), same order for the first ${same}; ` +
  `HF total merges ${hf.model.merges.length}, alphabet ${hfAlphabet.length}; vocab V=${V}: ${vshared} shared (${(100 * vshared / V).toFixed(1)}%)`);
