// interop.js DIR JS_PATTERN TEXT REF_IDS [by-id] — loads the tokenizer `train` wrote
// in DIR with the real libraries, as docs/using-the-tokenizer.md tells a
// user to, and requires of each the reference encoder's ids (REF_IDS, one
// per line, from refencode) for the whole of TEXT and for each of its lines,
// and an exact decode back to the text:
//   - HF tokenizers (npm `tokenizers`): Tokenizer.fromFile(DIR/tokenizer.json);
//   - js-tiktoken: new Tiktoken({bpe_ranks, special_tokens, pat_str}) from
//     DIR/tokenizer.tiktoken and DIR/tiktoken.json, with JS_PATTERN as pat_str
//     ("-" for tiktoken.json's own; run.sh passes others to see them caught),
//     and its special_tokens in the file's order (longest first), or with
//     "by-id" in id order (run.sh checks that this is caught).
// REF_IDS holds one block of ids per string, each ended by a line "-".
// Any difference fails (exit 1) with the string, both id lists and where
// they part; nothing is skipped.
"use strict";
const fs = require("fs");
const path = require("path");
const { Tokenizer } = require("tokenizers");
const { Tiktoken } = require("js-tiktoken/lite");

const [dir, jsPattern, textFile, refFile, specialsOrder] = process.argv.slice(2);
const text = fs.readFileSync(textFile, "utf8");
const strings = [text, ...text.split("\n").filter((s) => s.length > 0)];
const refBlocks = fs.readFileSync(refFile, "utf8").split("-\n").slice(0, -1)
    .map((b) => b.split("\n").filter((l) => l.length > 0).map(Number));
if (refBlocks.length !== strings.length)
  throw new Error(`${refFile}: ${refBlocks.length} blocks for ${strings.length} strings`);

let failed = 0;
let tokens = 0;

function check(library, index, ids, decoded) {
  const want = refBlocks[index];
  const s = strings[index];
  let at = 0;
  while (at < want.length && ids[at] === want[at]) at++;
  if (at !== want.length || ids.length !== want.length) {
    failed++;
    console.error(`interop: ${library} on ${dir}, string ${index} ${JSON.stringify(s.slice(0, 60))}:` +
        ` ids part at ${at}: got ${JSON.stringify(ids.slice(at, at + 8))},` +
        ` reference ${JSON.stringify(want.slice(at, at + 8))} (${ids.length} vs ${want.length} ids)`);
  } else if (decoded !== s) {
    failed++;
    console.error(`interop: ${library} on ${dir}, string ${index}: decode gives ` +
        `${JSON.stringify(decoded.slice(0, 60))}, not the text`);
  }
  tokens += ids.length;
}

// A package's version, from its package.json beside its entry point.
function version(name) {
  let at = path.dirname(require.resolve(name));
  while (!fs.existsSync(path.join(at, "package.json"))) at = path.dirname(at);
  return JSON.parse(fs.readFileSync(path.join(at, "package.json"), "utf8")).version;
}

async function main() {
  // HF tokenizers: the one file, as a user loads it.
  const hf = Tokenizer.fromFile(path.join(dir, "tokenizer.json"));
  for (let i = 0; i < strings.length; i++) {
    const enc = await hf.encode(strings[i], null, { addSpecialTokens: false });
    const ids = enc.getIds();
    check("tokenizers", i, ids, await hf.decode(ids, false));
  }

  // js-tiktoken: its ranks format is "! RANK BASE64..." per line.
  const config = JSON.parse(fs.readFileSync(path.join(dir, "tiktoken.json"), "utf8"));
  const ranks = fs.readFileSync(path.join(dir, "tokenizer.tiktoken"), "utf8").split("\n")
      .filter((l) => l.length > 0)
      .map((l) => { const [b64, rank] = l.split(" "); return `! ${rank} ${b64}`; }).join("\n");
  const specials = specialsOrder === "by-id"
    ? Object.fromEntries(Object.entries(config.special_tokens).sort((a, b) => a[1] - b[1]))
    : config.special_tokens;
  const tt = new Tiktoken({
    bpe_ranks: ranks,
    special_tokens: specials,
    pat_str: jsPattern === "-" ? config.pat_str : jsPattern,
  });
  for (let i = 0; i < strings.length; i++) {
    const ids = tt.encode(strings[i], "all");
    check("js-tiktoken", i, ids, tt.decode(ids));
  }
  console.log(`interop: ${dir}: ${strings.length} strings, ${tokens} tokens, ` +
      `${failed} mismatches (tokenizers ${version("tokenizers")}, js-tiktoken ${version("js-tiktoken")})`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => { console.error(`interop: ${dir}: ${e.message}`); process.exit(1); });
