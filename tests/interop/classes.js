// classes.js PCRE2_CLASSES — where JavaScript's \s, \p{L} and \p{N} (RegExp,
// u flag: what js-tiktoken compiles) differ from PCRE2's (UTF, UCP: what
// training uses). PCRE2_CLASSES is `refencode --classes`: a version line,
// then each class and the code points PCRE2 puts in it, as hex ranges.
// Prints, per class, the code points only one of the two takes (surrogates
// aside); docs/using-the-tokenizer.md quotes it. Reports, never fails.
"use strict";
const fs = require("fs");

const [file] = process.argv.slice(2);
const [version, ...lines] = fs.readFileSync(file, "utf8").trim().split("\n");
const hex = (cp) => "U+" + cp.toString(16).toUpperCase().padStart(4, "0");

// Code points as ranges "U+A-U+B", at most `shown` of them, then how many more.
function ranges(points, shown) {
  const out = [];
  for (let i = 0; i < points.length; i++) {
    let j = i;
    while (j + 1 < points.length && points[j + 1] === points[j] + 1) j++;
    out.push(i === j ? hex(points[i]) : `${hex(points[i])}-${hex(points[j])}`);
    i = j;
  }
  const more = out.length > shown ? ` and ${out.length - shown} more ranges` : "";
  return out.slice(0, shown).join(" ") + more;
}

console.log(`interop: classes of ${version} against Node ${process.versions.node} ` +
    `(Unicode ${process.versions.unicode})`);
for (const line of lines) {
  const [name, ...spans] = line.split(" ");
  const pcre2 = new Set();
  for (const span of spans) {
    const [a, b] = span.split("-").map((x) => parseInt(x, 16));
    for (let cp = a; cp <= b; cp++) pcre2.add(cp);
  }
  const js = new RegExp(`^${name}$`, "u");
  const onlyPcre2 = [], onlyJs = [];
  for (let cp = 0; cp < 0x110000; cp++) {
    if (cp >= 0xd800 && cp < 0xe000) continue;
    const inJs = js.test(String.fromCodePoint(cp));
    if (inJs && !pcre2.has(cp)) onlyJs.push(cp);
    if (!inJs && pcre2.has(cp)) onlyPcre2.push(cp);
  }
  console.log(`interop: ${name}: only PCRE2 takes ${onlyPcre2.length} code points` +
      `${onlyPcre2.length ? " (" + ranges(onlyPcre2, 6) + ")" : ""}, only JavaScript ` +
      `${onlyJs.length}${onlyJs.length ? " (" + ranges(onlyJs, 6) + ")" : ""}`);
}
