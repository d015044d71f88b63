// Renders TeX with KaTeX in one Node process (start-up costs ~0.1 s, so the build keeps one
// process for the whole book). stdin: one JSON batch per line, [[tex, display], ...];
// stdout: one line per batch, [{"html": ...} | {"error": ...}, ...] in the same order; the
// line "end" (or end of input) ends the process. The build sends each edition's formulas as
// soon as that edition is numbered, so KaTeX works on the first batch while Python parses the
// next edition. ("end", not only end of input: processes forked by the build inherit the pipe
// and would keep it open.)
const katex = require("katex");
const readline = require("readline");

function render([tex, display]) {
  try {
    return { html: katex.renderToString(tex, {
      displayMode: display, output: "htmlAndMathml", throwOnError: true, strict: "ignore",
      trust: false,
    }) };
  } catch (err) {
    return { error: String(err.message || err) };
  }
}

// Never outlive the build (see bookkit/util/processes.py): a killed build cannot send "end", and
// processes it forked may hold our stdin open, so also stop when we are re-parented.
const parent = process.ppid;
setInterval(() => { if (process.ppid !== parent) process.exit(1); }, 250).unref();

const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
lines.on("close", () => process.exit(0));
lines.on("line", (line) => {
  if (line === "end") { lines.close(); process.stdin.destroy(); return; }
  if (!line.trim()) return;
  process.stdout.write(JSON.stringify(JSON.parse(line).map(render)) + "\n");
});
